import './types.js';
import './mutations.js';
