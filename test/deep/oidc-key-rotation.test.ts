import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendGraphQL } from '../helpers/graphql.js';
import { REFETCH_COOLDOWN_MS } from '../../src/auth/issuer-keys.js';
import { demo } from '../../src/db/seed/index.js';
import { AUDIENCE, TestProvider } from '../helpers/oidc-provider.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

// Key rotation at the issuer, timed: a token signed with a key the gateway has not seen makes it fetch
// the key set again, at most once per REFETCH_COOLDOWN_MS (30 s), so a rotation is taken within 45 s.
// It waits that long, so it runs with the deep suite.

let provider: TestProvider;
let server: TestServer;

beforeAll(async () => {
  provider = await TestProvider.start({
    accounts: { olivia: { email: demo.users.owner.email, emailVerified: true } },
  });
  server = await startTestServer({ OIDC_ISSUER: provider.issuer, OIDC_AUDIENCE: AUDIENCE });
});
afterAll(async () => {
  await server?.close();
  await provider?.close();
});

async function accepted(token: string): Promise<boolean> {
  const response = await sendGraphQL(server.url, '{ me { email } }', { headers: { authorization: `Bearer ${token}` } });
  return response.status === 200;
}

describe("the issuer's keys", () => {
  it('take a key the issuer publishes within 45 s (at most one fetch per 30 s for unknown key ids)', async () => {
    // The gateway fetches the key set for the first token.
    expect(await accepted(await provider.signIn('olivia'))).toBe(true);
    await provider.rotate();
    const token = await provider.signIn('olivia');
    const started = Date.now();
    while (!(await accepted(token))) {
      expect(Date.now() - started).toBeLessThan(45_000);
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
    expect(Date.now() - started).toBeLessThanOrEqual(REFETCH_COOLDOWN_MS + 2_000);
  }, 60_000);
});
