import { decodeJwt, importJWK, SignJWT, type JWTPayload } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendGraphQL } from './helpers/graphql.js';
import { demo } from '../src/db/seed/index.js';
import { subscribeSse, until, type TestCredential } from './helpers/live.js';
import { AUDIENCE, TestProvider } from './helpers/oidc-provider.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { RawSocket } from './helpers/websocket.js';

// A key or token that expires ends each of its subscriptions once, at its expiry (a token's clock
// leeway is for accepting it, not for keeping a stream past `exp`), and nothing runs for them after:
// the statements are counted from the expiry on.

let provider: TestProvider;
let server: TestServer;
let board: number;

beforeAll(async () => {
  provider = await TestProvider.start({ accounts: { olivia: { email: demo.users.owner.email, emailVerified: true } } });
  server = await startTestServer({ OIDC_ISSUER: provider.issuer, OIDC_AUDIENCE: AUDIENCE, LIVE_POLL_MS: '60000' });
  board = (await server.graphql('{ whiteboards(first: 1) { edges { node { rowId } } } }')).data!.whiteboards.edges[0]
    .node.rowId;
});
afterAll(async () => {
  await server?.close();
  await provider?.close();
});

const subscription = 'subscription($id: Int!) { whiteboardEvents(whiteboardId: $id) { ... on LiveEvent { kind } } }';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A real token of the provider for the demo owner, signed again with the provider's key to expire at `exp` (seconds). */
async function tokenExpiringAt(exp: number): Promise<string> {
  const claims: JWTPayload = decodeJwt(await provider.signIn('olivia'));
  const key = provider.keys[0];
  return new SignJWT({ ...claims, exp })
    .setProtectedHeader({ alg: 'ES256', kid: key.kid, typ: 'at+jwt' })
    .sign(await importJWK(key.privateJwk, 'ES256'));
}

/** Subscribes with `credential` on both transports: what each received, in order, and when its first result came. */
async function endsOfBoth(credential: TestCredential) {
  const sse = await subscribeSse(server.url, credential, subscription, { id: board });
  const socket = await RawSocket.signedIn(server.url, credential);
  socket.send({ type: 'subscribe', id: 's', payload: { query: subscription, variables: { id: board } } });
  const overSse = (async () => {
    const last = await sse.next(10_000);
    const at = Date.now();
    await sse.ended;
    return { results: [last], at };
  })();
  const overWebSocket = (async () => {
    const last = await socket.next((message) => message.id === 's', 10_000);
    const at = Date.now();
    const complete = await socket.next((message) => message.id === 's', 2_000);
    const more = await socket.next((message) => message.id === 's', 1_500);
    socket.close();
    return { results: [last?.payload, complete?.type, more], at };
  })();
  return { sse: overSse, webSocket: overWebSocket };
}

const expiredAnswer = {
  errors: [{ extensions: { code: 'UNAUTHENTICATED', reason: 'EXPIRED' }, message: expect.stringMatching(/expired/) }],
};

describe('an expiring credential', () => {
  it("ends each subscription of an API key and of a bearer token once, within a second of expiry (not 30 s of a token's clock leeway later), and no statement runs after", async () => {
    const exp = Math.ceil(Date.now() / 1000) + 3;
    const created = await server.graphql(
      `mutation($at: DateTime!) { createApiKey(input: { name: "brief", permission: READ_ONLY, expiresAt: $at }) { secret } }`,
      { at: new Date(exp * 1000).toISOString() },
    );
    const [key, token] = await Promise.all([
      endsOfBoth(created.data!.createApiKey.secret),
      tokenExpiringAt(exp).then((bearer) => endsOfBoth({ bearer })),
    ]);
    await until(() => server.gateway.live.size === 4);
    // What opening them wrote off the request's path (a key's or identity's last use) is done by now.
    await sleep(300);
    const { result, statements } = await server.countStatements(async () => {
      const ends = await Promise.all([key.sse, key.webSocket, token.sse, token.webSocket]);
      await sleep(1_500);
      return ends;
    });
    expect(result.map(({ results }) => results)).toMatchObject([
      [expiredAnswer],
      [expiredAnswer, 'complete', undefined],
      [expiredAnswer],
      [expiredAnswer, 'complete', undefined],
    ]);
    for (const { at } of result) {
      expect(at - exp * 1000).toBeGreaterThanOrEqual(0);
      expect(at - exp * 1000).toBeLessThan(1_000);
    }
    expect(statements).toEqual([]);
    await until(() => server.gateway.live.size === 0);
  });

  it('is accepted within its leeway, looked up once, but opens no subscription past exp', async () => {
    const token = await tokenExpiringAt(Math.floor(Date.now() / 1000) - 5);
    const ask = () =>
      sendGraphQL(server.url, '{ me { email } }', { headers: { authorization: `Bearer ${token}` } }).then((response) =>
        response.json(),
      );
    const first = await server.countStatements(ask);
    expect(first.result).toEqual({ data: { me: { email: demo.users.owner.email } } });
    expect(first.statements.filter((sql) => /user_identity/.test(sql)).length).toBeGreaterThan(0);
    await sleep(200);
    // Cached until the leeway ends: neither looked up nor its last use written again, at each request.
    for (let request = 0; request < 3; request++) {
      const again = await server.countStatements(ask);
      expect(again.result).toEqual(first.result);
      expect(again.statements.filter((sql) => /user_identity/.test(sql))).toEqual([]);
    }
    const events = await subscribeSse(server.url, { bearer: token }, subscription, { id: board });
    expect(await events.next()).toMatchObject(expiredAnswer);
    await events.ended;
    expect(server.gateway.live.size).toBe(0);
  });
});
