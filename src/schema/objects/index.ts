import './types.js';
import './mutations.js';
import './attributes.js';
import './search.js';
