import { startLiveFuzzProcess } from '../helpers/live-fuzz.js';
import { liveFuzzSuite } from '../helpers/live-fuzz-suite.js';

// test/live-fuzz.test.ts at ten times the size, against npm start's server (its 160 MB heap): 40
// batches of 8 scenarios per door by default.
liveFuzzSuite('test/deep/live-fuzz.test.ts', Number(process.env.FUZZ_LIVE_RUNS ?? 40), 64, startLiveFuzzProcess);
