import { startLiveFuzzInstance } from './helpers/live-fuzz.js';
import { liveFuzzSuite } from './helpers/live-fuzz-suite.js';

// The WebSocket and Server-Sent Events doors with generated hostile input, a few seconds' worth, on the
// gateway in process. Its memory is the test worker's, clients and garbage not yet collected included
// (its peak grew 306 MiB on a loaded machine), so it is not bounded here:
// test/deep/live-fuzz.test.ts runs ten times more against npm start's server and bounds that process's.
// FUZZ_LIVE_RUNS sets the batches of 8 scenarios per door.
liveFuzzSuite('test/live-fuzz.test.ts', Number(process.env.FUZZ_LIVE_RUNS ?? 4), undefined, startLiveFuzzInstance);
