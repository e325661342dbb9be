import { afterAll, beforeAll, expect, it } from 'vitest';
import { hashSecret } from '../src/auth/api-keys.js';
import { configureLogging, logError, scrub } from '../src/observability/logger.js';
import { AUDIENCE, demoAccounts, TestProvider } from './helpers/oidc-provider.js';
import { rest } from './helpers/rest.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { sendGraphQL } from './helpers/graphql.js';

// The logger's own destination, read in process: every line pino writes, as written.
const written: string[] = [];
const lines = () => written.map((line) => JSON.parse(line) as Record<string, any>);
const requestLine = (requestId: string) =>
  lines().find((line) => line.msg === 'request' && line.requestId === requestId);

let server: TestServer;
let provider: TestProvider;
beforeAll(async () => {
  await configureLogging({ level: 'info', format: 'json' }, { write: (line: string) => void written.push(line) });
  provider = await TestProvider.start({ accounts: demoAccounts() });
  server = await startTestServer({ OIDC_ISSUER: provider.issuer, OIDC_AUDIENCE: AUDIENCE });
});
afterAll(async () => {
  await server?.close();
  await provider?.close();
});

/** Waits for the line of a request: it is written when the response closes, which may follow the client's read. */
async function lineOf(requestId: string) {
  await expect.poll(() => requestLine(requestId)).toBeDefined();
  return requestLine(requestId)!;
}

it('names the user and the credential kind of a bearer token, never the token', async () => {
  const token = await provider.signIn('member');
  const answer = await send('{ me { rowId } }', {
    'x-api-key': '',
    authorization: `Bearer ${token}`,
    'x-request-id': 'token-1',
  });
  const { rowId } = ((await answer.json()) as { data: { me: { rowId: number } } }).data.me;
  const line = await lineOf('token-1');
  expect(line).toMatchObject({ status: 200, userId: rowId, credential: 'BEARER_TOKEN' });
  expect(line.keyPrefix).toBeUndefined();
  expect(written.join('\n')).not.toContain(token.split('.')[2]);
  expect(scrub(`refused ${token}`)).toBe('refused [redacted JWT]');
});

/** An operation of the demo owner's, with headers of the test's own. */
const send = (query: string, headers: Record<string, string> = {}, variables?: Record<string, unknown>) =>
  sendGraphQL(server.url, query, { key: server.keys.owner, headers, variables });

it('writes one JSON line per /graphql request, with the caller, the operation and its statements, and echoes the request id', async () => {
  const response = await send('query OneBoard { whiteboards(first: 1) { edges { node { name } } } }', {
    'x-request-id': 'client-chosen-1',
  });
  expect(response.status).toBe(200);
  expect(response.headers.get('x-request-id')).toBe('client-chosen-1');
  await response.text();
  const line = await lineOf('client-chosen-1');
  const prefix = (
    await server.database.prisma.apiKey.findFirstOrThrow({ where: { secretHash: hashSecret(server.keys.owner) } })
  ).prefix;
  expect(line).toMatchObject({
    level: 30,
    method: 'POST',
    path: '/graphql',
    route: '/graphql',
    operation: 'OneBoard',
    operationType: 'query',
    status: 200,
    keyPrefix: prefix,
    credential: 'API_KEY',
    userId: expect.any(Number),
  });
  expect(line.organizationIds.length).toBeGreaterThan(0);
  expect(line.statements).toBeGreaterThanOrEqual(1);
  expect(line.ms).toBeGreaterThan(0);
  expect(server.keys.owner.startsWith(prefix)).toBe(true);
});

it('makes up a request id when none (or an unusable one) is given', async () => {
  for (const headers of [{}, { 'x-request-id': 'has spaces and "quotes"' }] as Record<string, string>[]) {
    const response = await send('{ me { rowId } }', headers);
    const id = response.headers.get('x-request-id')!;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    await response.text();
    expect((await lineOf(id)).status).toBe(200);
  }
});

it("logs a REST call once, under its route and the route's operation", async () => {
  const response = await rest(server, 'GET', '/api/whiteboard/v1/?limit=2', { headers: { 'x-request-id': 'rest-1' } });
  expect(response.status).toBe(200);
  const line = await lineOf('rest-1');
  expect(line).toMatchObject({
    method: 'GET',
    path: '/api/whiteboard/v1/',
    route: '/api/whiteboard/v1/',
    operationType: 'query',
    status: 200,
  });
  expect(line.operation).toMatch(/\w+/);
  expect(lines().filter((entry) => entry.requestId === 'rest-1')).toHaveLength(1);
});

it('never writes a key or a secret-named body field', async () => {
  const secrets = { password: 'pw-6f1d2c', token: 'tok-93ab71', secret: 'sec-0c77e2', apiKey: 'ak-5e18aa' };
  await (
    await send('query Probe($password: String) { me { rowId } }', { 'x-request-id': 'secrets-1' }, secrets)
  ).text();
  await rest(server, 'POST', '/api/users/invite/v1/register/', {
    key: null,
    json: { ...secrets, token: secrets.token, email: 'new@example.com', first_name: 'N', last_name: 'N' },
    headers: { 'x-request-id': 'secrets-2' },
  });
  await lineOf('secrets-1');
  await lineOf('secrets-2');
  const all = written.join('\n');
  for (const value of [server.keys.owner, ...Object.values(secrets)]) expect(all).not.toContain(value);
});

it('logs an unexpected error with its request id and cause chain, and scrubs secrets from error text', async () => {
  const { rowId } = (await server.graphql('{ whiteboards(first: 1) { edges { node { rowId } } } }')).data!.whiteboards
    .edges[0].node;
  // A column the code expects is gone: the change fails inside the database, a bug as far as the caller can tell.
  await server.database.engine.query('ALTER TABLE whiteboard RENAME COLUMN name TO name_gone');
  try {
    const mutation =
      'mutation Rename($rowId: Int!) { updateWhiteboard(input: { rowId: $rowId, name: "Renamed" }) { whiteboard { name } } }';
    const response = await send(mutation, { 'x-request-id': 'broken-1' }, { rowId });
    expect((await response.json()).errors[0].message).toBe('Unexpected error.');
    await lineOf('broken-1');
    const errors = lines().filter((entry) => entry.level === 50 && entry.requestId === 'broken-1');
    expect(errors).toHaveLength(1);
    // The GraphQL error located at its field, then what Prisma and the database said.
    const chain: { message: string; path?: string }[] = [];
    for (let cause = errors[0]!.err; cause; cause = cause.cause) chain.push(cause);
    expect(chain[0]!.path).toBe('updateWhiteboard');
    expect(chain.length).toBeGreaterThanOrEqual(2);
    expect(chain.map((cause) => cause.message).join(' <- ')).toMatch(/name/);
  } finally {
    await server.database.engine.query('ALTER TABLE whiteboard RENAME COLUMN name_gone TO name');
  }
  expect(scrub(`create({ data: { password: "hunter2", name: "x" } }) with wbg_AbC-123 and token=abc`)).toBe(
    'create({ data: { password: "[redacted]", name: "x" } }) with wbg_[redacted] and token="[redacted]"',
  );
});

it("keeps secrets out of an error's reason and of a URL's password, in every line", async () => {
  const { logger, yogaLogger } = await import('../src/observability/logger.js');
  const before = written.length;
  const message = 'reached postgresql://gateway:pa/hunter2@db:5432/gateway?password=hunter3 with token: "eyJx"';
  logger.warn({ reason: message }, 'a line with a reason');
  // A statement stopped by PostgreSQL, which the log gives as a reason rather than a stack.
  yogaLogger(() => {}).error(Object.assign(new Error(message), { code: '57014' }));
  logError(new Error(`connect to ${message}`), 'an error with its stack');
  const added = written.slice(before).join('\n');
  expect(written.length - before).toBe(3);
  for (const secret of ['hunter2', 'hunter3', 'pa/']) expect(added).not.toContain(secret);
  expect(added).toContain('postgresql://gateway:[redacted]@');
});
