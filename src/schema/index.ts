import { builder } from './builder.js';
import './organizations.js';
import './users.js';
import './api-keys.js';
import './action-log.js';
import './files.js';
import './whiteboards.js';
import './data-streams.js';
import './objects.js';
import './highlights.js';
import './object-repository.js';
import './libraries.js';

export const schema = builder.toSchema();
