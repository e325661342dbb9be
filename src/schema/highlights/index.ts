import './types.js';
import './mutations.js';
import './queries.js';
