import { builder } from './builder.js';
import './organizations.js';
import './users.js';
import './memberships.js';
import './invites.js';
import './api-keys.js';
import './action-log.js';
import './files.js';
import './whiteboards.js';
import './data-streams.js';
import './archive.js';
import './objects/index.js';
import './highlights/index.js';
import './object-repository.js';
import './libraries/index.js';
import './files-upload.js';
import './import-export/index.js';

export const schema = builder.toSchema();
