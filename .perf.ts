import autocannon from 'autocannon';
import { serve } from '@hono/node-server';
import { loadConfig } from './src/config.js';
import { createApp } from './src/http/app.js';
import { compileRoutes } from './src/rest/index.js';
import { schema } from './src/schema/index.js';
import { openTestDatabase } from './test/helpers/database.js';

const { keys, drop } = await openTestDatabase();
const { app } = createApp({ schema, config: loadConfig({ DATA_DIR: '/tmp/rest-perf' }) });
const server = serve({ fetch: app.fetch, port: 4556, hostname: '127.0.0.1' });
const base = 'http://127.0.0.1:4556';
const headers = { 'x-api-key': keys.owner, 'content-type': 'application/json', accept: 'application/graphql-response+json' };
// 100 boards in the owner's organization, so a page is full.
for (let i = 0; i < 98; i++) {
  await fetch(`${base}/graphql`, { method: 'POST', headers, body: JSON.stringify({ query: 'mutation($i: CreateWhiteboardInput!) { createWhiteboard(input: $i) { whiteboard { rowId } } }', variables: { i: { name: `perf ${i}`, miniDrawingId: 5 } } }) });
}
const routes = compileRoutes(schema);
const cases = [
  ['Whiteboard List', '/api/whiteboard/v1/', { first: 100, offset: 0 }],
  ['Get Library Class', '/api/library/view/v1/class-conf/1/', { id: 1 }],
] as const;
const run = (opts: autocannon.Options) => new Promise<autocannon.Result>((resolve) => autocannon({ duration: Number(process.env.SECONDS ?? 10), connections: Number(process.env.CONNECTIONS ?? 1), ...opts }, (_e, r) => resolve(r)));
for (const [name, path, variables] of cases) {
  const route = routes.find((r) => r.name === name)!;
  const restOpts = { url: base + path, headers: { 'x-api-key': keys.owner } };
  const gqlOpts = { url: `${base}/graphql`, method: 'POST' as const, headers, body: JSON.stringify({ query: route.operation, operationName: route.operationName, variables }) };
  const check = await (await fetch(base + path, { headers: { 'x-api-key': keys.owner } })).json();
  console.log(name, 'rows/fields', Array.isArray(check) ? check.length : Object.keys(check).length);
  await run({ ...restOpts, duration: 3 }); await run({ ...gqlOpts, duration: 3 });
  const results: Record<string, number[]> = { rest: [], graphql: [] };
  for (let round = 0; round < 3; round++) {
    for (const [label, opts] of [['graphql', gqlOpts], ['rest', restOpts]] as const) {
      const r = await run(opts);
      if (r.non2xx || r.errors) console.log('errors', label, r.non2xx, r.errors);
      results[label].push(r.requests.average);
    }
  }
  const avg = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const [g, rr] = [avg(results.graphql), avg(results.rest)];
  console.log(`${name}: GraphQL ${g.toFixed(1)} req/s (${(1000 / g).toFixed(2)} ms), REST ${rr.toFixed(1)} req/s (${(1000 / rr).toFixed(2)} ms), REST costs ${((g / rr - 1) * 100).toFixed(1)}% more per request; rounds`, JSON.stringify(results));
}
server.close();
await drop();
process.exit(0);
