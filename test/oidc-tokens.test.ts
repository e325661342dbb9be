import { createPublicKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeJwt, importJWK, SignJWT, type JWTPayload } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refusalReasons } from '../src/auth/refusals.js';
import { demo } from '../src/db/seed/index.js';
import { AUDIENCE, newSigningKey, TestProvider, type SigningKey } from './helpers/oidc-provider.js';
import { startInstance, startTestServer, type TestServer } from './helpers/server.js';
import { sendGraphQL } from './helpers/graphql.js';

// Every check on a bearer token, against a real OpenID provider (oidc-provider, with keys of its own)
// and issuers that misbehave: each refusal is a 401 with its reason code on both doors, never a 500.
// Tokens an attacker makes (alg none, HMAC with the public key, a late replay re-signed with a
// stolen key) are made here by hand; every other token comes from the provider's own flows.

let provider: TestProvider;
let stranger: TestProvider;
let server: TestServer;
const fakes: Server[] = [];
let garbageIssuer: string;
let silentIssuer: string;
const deadIssuer = 'http://127.0.0.1:9';
const TIMEOUT_MS = 400;

/** A loopback server answering every request with `answer` (nothing: it never answers). */
async function fakeIssuer(answer?: (path: string, issuer: string) => string): Promise<string> {
  let issuer = '';
  const fake = createServer((request, response) => {
    if (answer) response.writeHead(200, { 'content-type': 'application/json' }).end(answer(request.url ?? '', issuer));
  });
  fakes.push(fake);
  await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(fake.address() as AddressInfo).port}`;
  return issuer;
}

const owner = { email: demo.users.owner.email, emailVerified: true };
const robot = { id: 'robot', secret: 'a-long-enough-secret-of-the-robot', scope: 'whiteboard.read' };

beforeAll(async () => {
  provider = await TestProvider.start({ accounts: { olivia: owner }, services: [robot] });
  stranger = await TestProvider.start({ accounts: { olivia: owner } });
  // Discovery answers; the key set is not JSON.
  garbageIssuer = await fakeIssuer((path, issuer) =>
    path.endsWith('openid-configuration') ? JSON.stringify({ issuer, jwks_uri: `${issuer}/jwks` }) : '<html>oops',
  );
  silentIssuer = await fakeIssuer();
  server = await startTestServer({
    OIDC_ISSUER: [provider.issuer, garbageIssuer, silentIssuer, deadIssuer].join(','),
    OIDC_AUDIENCE: AUDIENCE,
    OIDC_TIMEOUT_MS: String(TIMEOUT_MS),
  });
});
afterAll(async () => {
  await server?.close();
  await provider?.close();
  await stranger?.close();
  for (const fake of fakes) {
    fake.closeAllConnections();
    fake.close();
  }
});

const now = () => Math.floor(Date.now() / 1000);

/** A token signed with `key`, as whoever holds it would make one. */
async function signed(key: SigningKey, claims: JWTPayload, header: Record<string, unknown> = {}): Promise<string> {
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'ES256', kid: key.kid, typ: 'at+jwt', ...header })
    .sign(await importJWK(key.privateJwk, 'ES256'));
}

/** The claims of a real token of the provider, for replays and forgeries. */
async function realClaims(scope = 'whiteboard.read'): Promise<JWTPayload> {
  return decodeJwt(await provider.signIn('olivia', scope));
}

const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');

interface Refused {
  graphql: [number, unknown, unknown, string | null];
  rest: [number, string, string | null];
}

/** How both doors answer a token: /graphql's status, code, reason and challenge; REST's status, detail and challenge. */
async function answers(token: string, headers: Record<string, string> = {}): Promise<Refused> {
  const send = { authorization: `Bearer ${token}`, ...headers };
  const graphql = await sendGraphQL(server.url, '{ me { email } }', { headers: send });
  const body = (await graphql.json()) as { errors?: { extensions: Record<string, unknown> }[]; data?: unknown };
  const rest = await fetch(`${server.url}/api/users/info/v1/`, { headers: send });
  const detail = ((await rest.json()) as { detail?: string }).detail ?? JSON.stringify(body.data);
  return {
    graphql: [
      graphql.status,
      body.errors?.[0]?.extensions.code ?? 'accepted',
      body.errors?.[0]?.extensions.reason,
      graphql.headers.get('www-authenticate'),
    ],
    rest: [rest.status, detail, rest.headers.get('www-authenticate')],
  };
}

/** A token without the gateway's scopes is who it says and may do nothing: 403 (RFC 6750 3.1); any other refusal 401. */
function refusedFor(reason: string): Refused {
  const scope = reason === 'INSUFFICIENT_SCOPE';
  const challenge = scope
    ? `Bearer error="insufficient_scope", error_description="${reason}", scope="whiteboard.read whiteboard.write whiteboard.admin"`
    : `Bearer error="invalid_token", error_description="${reason}"`;
  const status = scope ? 403 : 401;
  return {
    graphql: [status, scope ? 'FORBIDDEN' : 'UNAUTHENTICATED', reason, challenge],
    rest: [status, expect.stringContaining(`(${reason})`) as unknown as string, challenge],
  };
}

describe('a token of the provider', () => {
  it('signs its user in on both doors', async () => {
    const token = await provider.signIn('olivia');
    const graphql = await sendGraphQL(server.url, '{ me { email } }', {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(await graphql.json()).toEqual({ data: { me: { email: owner.email } } });
    const rest = await fetch(`${server.url}/api/users/info/v1/`, { headers: { authorization: `Bearer ${token}` } });
    expect(rest.status).toBe(200);
    expect(((await rest.json()) as { email: string }).email).toBe(owner.email);
  });

  it('is taken a little after its expiry (clock skew), not later', async () => {
    const claims = await realClaims();
    const key = provider.keys[0];
    expect((await answers(await signed(key, { ...claims, exp: now() - 5 }))).graphql[1]).toBe('accepted');
    expect(await answers(await signed(key, { ...claims, exp: now() - 120 }))).toEqual(refusedFor('TOKEN_EXPIRED'));
  });
});

describe('refusals: 401 with a reason code on both doors', () => {
  const cases: [string, () => Promise<string>, string][] = [
    [
      'not yet valid',
      async () => signed(provider.keys[0], { ...(await realClaims()), nbf: now() + 300 }),
      'TOKEN_NOT_YET_VALID',
    ],
    [
      'of another audience (a real token for another API of the provider)',
      () => provider.signIn('olivia', 'whiteboard.read', 'https://other.example/api'),
      'WRONG_AUDIENCE',
    ],
    ['of an issuer the gateway does not accept', () => stranger.signIn('olivia'), 'UNKNOWN_ISSUER'],
    [
      "naming the gateway's issuer, signed by another",
      async () => signed(stranger.keys[0], { ...decodeJwt(await stranger.signIn('olivia')), iss: provider.issuer }),
      'UNKNOWN_KEY',
    ],
    [
      'with alg none',
      async () => `${part({ alg: 'none', typ: 'JWT' })}.${part(await realClaims('whiteboard.admin'))}.`,
      'UNSUPPORTED_ALGORITHM',
    ],
    [
      "signed with HMAC, the issuer's public key as the secret",
      async () => {
        const pem = createPublicKey({ key: provider.keys[0].publicJwk as never, format: 'jwk' })
          .export({ type: 'spki', format: 'pem' })
          .toString();
        return new SignJWT(await realClaims('whiteboard.admin'))
          .setProtectedHeader({ alg: 'HS256', kid: provider.keys[0].kid })
          .sign(new TextEncoder().encode(pem));
      },
      'UNSUPPORTED_ALGORITHM',
    ],
    [
      'with a key id the set does not hold',
      async () => signed(await newSigningKey('unpublished'), await realClaims()),
      'UNKNOWN_KEY',
    ],
    [
      'whose claims were changed after signing',
      async () => {
        const [header, , signature] = (await provider.signIn('olivia')).split('.');
        return `${header}.${part({ ...(await realClaims()), scope: 'whiteboard.admin' })}.${signature}`;
      },
      'INVALID_SIGNATURE',
    ],
    ['with none of the gateway scopes', () => provider.clientCredentials(robot, ''), 'INSUFFICIENT_SCOPE'],
    ['that is no JWT at all', async () => 'not-a-token', 'MALFORMED_TOKEN'],
    ['larger than 8 KiB, before any work', async () => `${'a'.repeat(9000)}.b.c`, 'TOKEN_TOO_LARGE'],
    [
      'of an issuer whose key set is garbage',
      async () => signed(await newSigningKey(), { ...(await realClaims()), iss: garbageIssuer }),
      'ISSUER_UNAVAILABLE',
    ],
    [
      'of an issuer that is down',
      async () => signed(await newSigningKey(), { ...(await realClaims()), iss: deadIssuer }),
      'ISSUER_UNAVAILABLE',
    ],
  ];

  it.each(cases)('a token %s', async (_what, make, reason) => {
    expect(await answers(await make())).toEqual(refusedFor(reason));
  });

  it('refuses a key and a token sent together', async () => {
    const token = await provider.signIn('olivia');
    expect(await answers(token, { 'x-api-key': server.keys.owner })).toEqual(refusedFor('TWO_CREDENTIALS'));
  });

  it('waits for an issuer that never answers no longer than its timeout', async () => {
    const token = await signed(await newSigningKey(), { ...(await realClaims()), iss: silentIssuer });
    const started = Date.now();
    expect(await answers(token)).toEqual(refusedFor('ISSUER_UNAVAILABLE'));
    // Two requests (both doors), each waiting at most the discovery's timeout; then a fetch is not tried again at once.
    expect(Date.now() - started).toBeLessThan(3 * TIMEOUT_MS + 500);
  });
});

describe("the issuer's keys", () => {
  it('keep tokens working while the issuer is away', async () => {
    const [before, token] = [await provider.signIn('olivia'), await provider.signIn('olivia', 'whiteboard.write')];
    expect((await answers(before)).graphql[1]).toBe('accepted');
    provider.setAvailable(false);
    try {
      // Never seen before, so verified now, with the keys fetched before.
      expect((await answers(token)).graphql[1]).toBe('accepted');
    } finally {
      provider.setAvailable(true);
    }
  });
});

describe('docs/openid-connect.md', () => {
  it('lists every reason code of a refusal', () => {
    const page = readFileSync(new URL('../docs/openid-connect.md', import.meta.url), 'utf8');
    const table = page.slice(page.indexOf('<!-- refusal reasons'), page.indexOf('<!-- /refusal reasons -->'));
    for (const reason of Object.keys(refusalReasons)) expect(table, reason).toContain(`| \`${reason}\` |`);
  });
});

describe('an ID token sent as an access token', () => {
  it('is refused NOT_AN_ACCESS_TOKEN on both doors: typed other than at+jwt, or its azp among its audiences', async () => {
    const claims = await realClaims();
    const key = provider.keys[0];
    const notAccess = refusedFor('NOT_AN_ACCESS_TOKEN');
    expect(await answers(await signed(key, claims, { typ: 'JWT' }))).toEqual(notAccess);
    expect(await answers(await signed(key, { ...claims, azp: AUDIENCE }))).toEqual(notAccess);
    expect(await answers(await signed(key, { ...claims, aud: [AUDIENCE, 'web-client'], azp: 'web-client' }))).toEqual(
      notAccess,
    );
    // Typed as RFC 9068 writes it (any case, with application/), or untyped; its client named as azp.
    for (const token of [
      await signed(key, claims, { typ: 'application/AT+JWT' }),
      await signed(key, claims, { typ: undefined }),
      await signed(key, { ...claims, azp: 'web-client' }),
    ])
      expect((await answers(token)).graphql[1]).toBe('accepted');
  });

  it('typed JWT is taken where OIDC_ACCESS_TOKEN_TYPES allows it, and still refused when its azp is its audience', async () => {
    const lenient = await startInstance({
      OIDC_ISSUER: provider.issuer,
      OIDC_AUDIENCE: AUDIENCE,
      OIDC_ACCESS_TOKEN_TYPES: 'at+jwt, JWT',
    });
    try {
      const claims = await realClaims();
      const ask = async (token: string) =>
        (await sendGraphQL(lenient.url, '{ me { email } }', { headers: { authorization: `Bearer ${token}` } })).json();
      expect(await ask(await signed(provider.keys[0], claims, { typ: 'JWT' }))).toEqual({
        data: { me: { email: owner.email } },
      });
      expect(await ask(await signed(provider.keys[0], { ...claims, azp: AUDIENCE }, { typ: 'JWT' }))).toMatchObject({
        errors: [{ extensions: { code: 'UNAUTHENTICATED', reason: 'NOT_AN_ACCESS_TOKEN' } }],
      });
    } finally {
      await lenient.close();
    }
  });
});
