import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInstance, startTestServer, type TestServer } from './helpers/server.js';

// Every 401, on every door, says how to authenticate (RFC 9110 15.5.2): a refused bearer token's own
// challenge (RFC 6750), else the schemes this gateway takes.

let server: TestServer;
let withTokens: Awaited<ReturnType<typeof startInstance>>;

beforeAll(async () => {
  server = await startTestServer({ METRICS_TOKEN: 'metrics-secret' });
  // Bearer tokens accepted; the malformed ones below are refused before any issuer is asked.
  withTokens = await startInstance({ OIDC_ISSUER: 'http://127.0.0.1:9', OIDC_AUDIENCE: 'https://gateway.test' });
});
afterAll(async () => {
  await withTokens?.close();
  await server?.close();
});

const graphql = (headers: Record<string, string>) => ({
  path: '/graphql',
  init: {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json', ...headers },
    body: JSON.stringify({ query: '{ me { rowId } }' }),
  },
});
const rest = (headers: Record<string, string>) => ({ path: '/api/users/info/v1/', init: { headers } });

/** Requests a client without a valid credential sends, on each door. */
const unauthenticated: Record<string, { path: string; init: RequestInit }> = {
  'GraphQL, no credential': graphql({}),
  'GraphQL, an unknown key': graphql({ 'x-api-key': 'wbg_unknown' }),
  'GraphQL, a key and a token together': graphql({ 'x-api-key': 'wbg_unknown', authorization: 'Bearer abc.def.ghi' }),
  'GraphQL, a malformed token': graphql({ authorization: 'Bearer not-a-token' }),
  'GraphQL over GET, no credential': { path: '/graphql?query=%7B%20me%20%7B%20rowId%20%7D%20%7D', init: {} },
  'REST, no credential': rest({}),
  'REST, a malformed token': rest({ authorization: 'Bearer not-a-token' }),
  'REST, a key and a token together': rest({ 'x-api-key': 'wbg_unknown', authorization: 'Bearer abc.def.ghi' }),
  'metrics, no token': { path: '/metrics', init: {} },
};

describe('every 401', () => {
  it('carries WWW-Authenticate, on either door, whether the gateway takes bearer tokens or not', async () => {
    for (const [gateway, url] of [
      ['API keys only', server.url],
      ['bearer tokens too', withTokens.url],
    ]) {
      let answered401 = 0;
      for (const [name, { path, init }] of Object.entries(unauthenticated)) {
        const response = await fetch(url + path, init);
        await response.arrayBuffer();
        if (response.status !== 401) continue;
        answered401++;
        expect(response.headers.get('www-authenticate'), `${gateway}: ${name}`).toMatch(/^(ApiKey|Bearer) /);
      }
      expect(answered401, gateway).toBeGreaterThanOrEqual(5);
    }
  });

  it("names the schemes the gateway takes when no token's own challenge applies", async () => {
    const { path, init } = unauthenticated['GraphQL, no credential'];
    const keysOnly = await fetch(server.url + path, init);
    expect(keysOnly.status).toBe(401);
    expect(keysOnly.headers.get('www-authenticate')).toBe('ApiKey realm="whiteboard-gateway"');
    const both = await fetch(withTokens.url + path, init);
    expect(both.headers.get('www-authenticate')).toBe(
      'ApiKey realm="whiteboard-gateway", Bearer realm="whiteboard-gateway"',
    );
    const token = await fetch(withTokens.url + path, unauthenticated['GraphQL, a malformed token'].init);
    expect(token.headers.get('www-authenticate')).toBe(
      'Bearer error="invalid_token", error_description="MALFORMED_TOKEN"',
    );
    const metrics = await fetch(`${server.url}/metrics`);
    expect([metrics.status, metrics.headers.get('www-authenticate')]).toEqual([401, 'Bearer realm="metrics"']);
  });
});
