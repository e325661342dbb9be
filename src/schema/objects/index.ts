import './types.js';
import './mutations.js';
import './instance-moves.js';
import './attributes.js';
import './search.js';
