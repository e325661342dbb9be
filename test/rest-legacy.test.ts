import { afterAll, beforeAll, describe } from 'vitest';
import { legacyContract } from './helpers/legacy-contract.js';
import { startTestServer, type TestServer } from './helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server?.close());

describe('the five operations specified in full', () => legacyContract(() => server));
