import { serve } from '@hono/node-server';
import { loadConfig } from './src/config.js';
import { createApp } from './src/http/app.js';
import { schema } from './src/schema/index.js';
import { openTestDatabase } from './test/helpers/database.js';
const { keys } = await openTestDatabase();
const { app } = createApp({ schema, config: loadConfig({ DATA_DIR: '/tmp/rest-serve' }) });
serve({ fetch: app.fetch, port: 4555, hostname: '127.0.0.1' }, () => console.log('ready', keys.owner));
