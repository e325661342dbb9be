import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendGraphQL } from './helpers/graphql.js';
import { createServiceUser } from '../src/auth/identities.js';
import { cachedPrincipals, principalGeneration, rememberPrincipal, type Principal } from '../src/auth/principal.js';
import { demo } from '../src/db/seed/index.js';
import { until, subscribeSse, subscribeWs } from './helpers/live.js';
import { AUDIENCE, TestProvider, type ServiceClient } from './helpers/oidc-provider.js';
import { startInstance, startTestServer, type TestServer } from './helpers/server.js';

// A token is a user of the gateway: its identity (issuer, subject) maps to one user, a first sign-in
// links a verified e-mail; memberships and roles stay the gateway's, scopes only narrow; a revoked
// identity, a deactivated user or a removed membership take effect as a key's revocation does.

const accounts = {
  olivia: { email: demo.users.owner.email, emailVerified: true, givenName: 'Olivia' },
  victor: { email: demo.users.viewer.email, emailVerified: true },
  ivan: { email: demo.users.inactive.email, emailVerified: true },
  unverified: { email: demo.users.admin.email, emailVerified: false },
  // As Entra ID sends it: no email_verified, the domain owner's verification in xms_edov.
  entra: {
    email: demo.users.member.email,
    emailVerified: false,
    extraClaims: { email_verified: undefined, xms_edov: true },
  },
  // Prisma's insensitive equality is an ILIKE, where `_` matches any character.
  lookalike: { email: demo.users.owner.email.replace('o', '_'), emailVerified: true },
  nina: { email: 'nina@newcomer.example', emailVerified: true, givenName: 'Nina', familyName: 'Newcomer' },
};
const importer: ServiceClient = {
  id: 'importer',
  secret: 'the-importer-secret-of-enough-length',
  scope: 'whiteboard.write',
};

let provider: TestProvider;
let server: TestServer;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  provider = await TestProvider.start({ accounts, services: [importer] });
  env = { OIDC_ISSUER: provider.issuer, OIDC_AUDIENCE: AUDIENCE };
  server = await startTestServer(env);
});
afterAll(async () => {
  await server?.close();
  await provider?.close();
});

interface Answer {
  status: number;
  data?: any;
  errors?: { message: string; extensions?: Record<string, unknown> }[];
}

const asToken = async (
  token: string,
  query: string,
  variables?: Record<string, unknown>,
  url = server.url,
): Promise<Answer> => {
  const response = await sendGraphQL(url, query, { variables, headers: { authorization: `Bearer ${token}` } });
  return { status: response.status, ...((await response.json()) as Omit<Answer, 'status'>) };
};

const reasonOf = (answer: Answer) => answer.errors?.[0]?.extensions?.reason ?? answer.errors?.[0]?.extensions?.code;

const userOf = (email: string) => server.database.prisma.user.findUniqueOrThrow({ where: { email } });
const acmeBoard = () =>
  server.database.prisma.whiteboard.findFirstOrThrow({
    where: { organization: { name: demo.organizations.acme.name } },
    orderBy: { id: 'asc' },
  });

describe('the first sign-in', () => {
  it("links the token's verified e-mail to the user of that e-mail, once", async () => {
    const first = await asToken(await provider.signIn('olivia'), '{ me { email } }');
    expect(first.data).toEqual({ me: { email: accounts.olivia.email } });
    const again = await asToken(await provider.signIn('olivia'), '{ me { email } }');
    expect(again.data).toEqual(first.data);
    const identities = await server.database.prisma.userIdentity.findMany({ where: { subject: 'olivia' } });
    expect(identities).toMatchObject([
      { issuer: provider.issuer, email: accounts.olivia.email, userId: (await userOf(accounts.olivia.email)).id },
    ]);
  });

  it('links no e-mail the issuer does not vouch for', async () => {
    const answer = await asToken(await provider.signIn('unverified'), '{ me { email } }');
    expect([answer.status, reasonOf(answer)]).toEqual([401, 'UNLINKED_IDENTITY']);
    expect(await server.database.prisma.userIdentity.count({ where: { subject: 'unverified' } })).toBe(0);
  });

  it("links no other user's e-mail that a pattern would match", async () => {
    const answer = await asToken(await provider.signIn('lookalike'), '{ me { email } }');
    expect([answer.status, reasonOf(answer)]).toEqual([401, 'UNKNOWN_USER']);
  });

  it("takes Entra ID's xms_edov as the issuer's word for the e-mail", async () => {
    const answer = await asToken(await provider.signIn('entra'), '{ me { email } }');
    expect(answer.data).toEqual({ me: { email: accounts.entra.email } });
  });

  it('creates no user unless OIDC_CREATE_USERS allows, and then one without memberships', async () => {
    const token = await provider.signIn('nina');
    const refused = await asToken(token, '{ me { email } }');
    expect([refused.status, reasonOf(refused)]).toEqual([401, 'UNKNOWN_USER']);
    expect(await server.database.prisma.user.count({ where: { email: accounts.nina.email } })).toBe(0);

    const creating = await startInstance({ ...env, OIDC_CREATE_USERS: 'true' });
    try {
      const created = await asToken(
        token,
        '{ me { email firstName lastName memberships { totalCount } } whiteboards { totalCount } }',
        {},
        creating.url,
      );
      expect(created.data).toEqual({
        me: { email: accounts.nina.email, firstName: 'Nina', lastName: 'Newcomer', memberships: { totalCount: 0 } },
        whiteboards: { totalCount: 0 },
      });
    } finally {
      await creating.close();
    }
  });
});

describe('what a token may do', () => {
  it("is the user's role, narrowed by the token's scopes as a key's permission narrows it", async () => {
    const board = await acmeBoard();
    const rename = `mutation($id: Int!, $name: String!) { updateWhiteboard(input: { rowId: $id, name: $name }) { whiteboard { name } } }`;
    const invite = `mutation { createUserInvite(input: { email: "someone@acme.example", role: VIEWER }) { userInvite { email } } }`;
    const read = await asToken(await provider.signIn('olivia', 'whiteboard.read'), rename, { id: board.id, name: 'R' });
    expect(read.errors?.[0]).toMatchObject({
      message: 'This bearer token is read-only',
      extensions: { code: 'FORBIDDEN' },
    });

    const write = await provider.signIn('olivia', 'whiteboard.write');
    expect((await asToken(write, rename, { id: board.id, name: 'Renamed by a token' })).data).toEqual({
      updateWhiteboard: { whiteboard: { name: 'Renamed by a token' } },
    });
    expect((await asToken(write, invite)).errors?.[0]).toMatchObject({
      message: 'A READ_WRITE bearer token may not invite and remove members',
    });
    const admin = await provider.signIn('olivia', 'whiteboard.read whiteboard.admin');
    expect((await asToken(admin, invite)).data).toEqual({
      createUserInvite: { userInvite: { email: 'someone@acme.example' } },
    });

    // The role stays the gateway's: an admin scope does not make a viewer an editor.
    const viewer = await asToken(await provider.signIn('victor', 'whiteboard.admin'), rename, {
      id: board.id,
      name: 'V',
    });
    expect(viewer.errors?.[0]).toMatchObject({
      extensions: { code: 'FORBIDDEN' },
      message: expect.stringContaining('VIEWER'),
    });
  });

  it('writes the user and the credential kind in the action log, on both doors', async () => {
    const board = await acmeBoard();
    const token = await provider.signIn('olivia', 'whiteboard.write');
    await asToken(
      token,
      `mutation($id: Int!) { updateWhiteboard(input: { rowId: $id, description: "via token" }) { whiteboard { rowId } } }`,
      { id: board.id },
    );
    const entry = await server.database.prisma.userActionLog.findFirstOrThrow({ orderBy: { id: 'desc' } });
    expect(entry).toMatchObject({ userId: (await userOf(accounts.olivia.email)).id, credential: 'BEARER_TOKEN' });
    const rest = await fetch(`${server.url}/api/users/action-log/v1/${entry.id}/`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(await rest.json()).toMatchObject({ id: entry.id, credential: 'BEARER_TOKEN' });
    await server.graphql(
      `mutation($id: Int!) { updateWhiteboard(input: { rowId: $id, description: "via key" }) { whiteboard { rowId } } }`,
      { id: board.id },
    );
    expect(await server.database.prisma.userActionLog.findFirstOrThrow({ orderBy: { id: 'desc' } })).toMatchObject({
      credential: 'API_KEY',
    });
  });
});

describe('revocation, as a key is revoked', () => {
  it('refuses a deactivated user', async () => {
    const answer = await asToken(await provider.signIn('ivan'), '{ me { email } }');
    expect([answer.status, reasonOf(answer)]).toEqual([401, 'USER_INACTIVE']);
  });

  it('ends the streams of a revoked identity within a second, over WebSocket and Server-Sent Events', async () => {
    const board = await acmeBoard();
    const token = await provider.signIn('olivia');
    const query = `subscription($id: Int!) { whiteboardEvents(whiteboardId: $id) { ... on LiveEvent { kind rowId } } }`;
    const ws = subscribeWs(server.url, { bearer: token }, query, { id: board.id });
    const sse = await subscribeSse(server.url, { bearer: token }, query, { id: board.id });
    await until(() => server.gateway.live.size === 2);
    await server.graphql(
      `mutation($id: Int!) { updateWhiteboard(input: { rowId: $id, name: "Heard" }) { whiteboard { rowId } } }`,
      { id: board.id },
    );
    expect((await ws.next()).data.whiteboardEvents).toEqual({ kind: 'UPDATED', rowId: board.id });
    expect((await sse.next()).data.whiteboardEvents).toEqual({ kind: 'UPDATED', rowId: board.id });

    // As an operator does, in SQL or `npm run identity -- revoke`: the trigger tells every instance.
    const revokedAt = Date.now();
    await server.database.prisma.userIdentity.updateMany({
      where: { subject: 'olivia' },
      data: { revokedAt: new Date() },
    });
    for (const stream of [ws, sse]) {
      expect((await stream.next(1_000)).errors?.[0]).toMatchObject({
        extensions: { code: 'UNAUTHENTICATED', reason: 'IDENTITY_REVOKED' },
      });
      await stream.ended;
    }
    expect(Date.now() - revokedAt).toBeLessThan(1_000);
    const answer = await asToken(token, '{ me { email } }');
    expect([answer.status, reasonOf(answer)]).toEqual([401, 'IDENTITY_REVOKED']);
    await server.database.prisma.userIdentity.updateMany({ where: { subject: 'olivia' }, data: { revokedAt: null } });
    expect((await asToken(token, '{ me { email } }')).data).toEqual({ me: { email: accounts.olivia.email } });
  });

  it("ends a removed member's stream and answers it as a non-member", async () => {
    const board = await acmeBoard();
    const token = await provider.signIn('victor');
    const viewer = await userOf(accounts.victor.email);
    const events = await subscribeSse(
      server.url,
      { bearer: token },
      `subscription($id: Int!) { whiteboardEvents(whiteboardId: $id) { __typename } }`,
      { id: board.id },
    );
    await server.database.prisma.userOrganization.deleteMany({
      where: { userId: viewer.id, organizationId: board.organizationId },
    });
    expect((await events.next(1_000)).errors?.[0]).toMatchObject({ extensions: { code: 'FORBIDDEN' } });
    expect((await asToken(token, `{ whiteboard(rowId: ${board.id}) { name } }`)).data).toEqual({ whiteboard: null });
  });

  it('refuses a WebSocket whose token is refused, naming the reason', async () => {
    const events = subscribeWs(server.url, { bearer: 'not-a-token' }, '{ __typename }');
    expect((await events.next()).errors?.[0].message).toMatch(/^4403 Forbidden: MALFORMED_TOKEN/);
  });
});

describe('services: client credentials', () => {
  it('sign in as the service user of one organization once an operator links the client', async () => {
    const token = await provider.clientCredentials(importer);
    const unlinked = await asToken(token, '{ me { email } }');
    expect([unlinked.status, reasonOf(unlinked)]).toEqual([401, 'UNLINKED_IDENTITY']);

    const globex = await server.database.prisma.organization.findFirstOrThrow({
      where: { name: demo.organizations.globex.name },
    });
    await createServiceUser(server.database.prisma, {
      name: 'Nightly importer',
      organizationId: globex.id,
      role: 'MEMBER',
      issuer: provider.issuer,
      subject: importer.id,
    });
    const boards = await asToken(token, '{ me { email } whiteboards { nodes { organizationId } } }');
    expect(boards.data.me.email).toBe(`nightly-importer.${globex.id}@services.invalid`);
    expect(
      new Set(boards.data.whiteboards.nodes.map((node: { organizationId: number }) => node.organizationId)),
    ).toEqual(new Set([globex.id]));
    const created = await asToken(
      token,
      `mutation { createWhiteboard(input: { name: "Imported" }) { whiteboard { organizationId } } }`,
    );
    expect(created.data).toEqual({ createWhiteboard: { whiteboard: { organizationId: globex.id } } });
  });
});

describe('rate limits', () => {
  it("charge every token of a user to one bucket, apart from the user's keys", async () => {
    const limited = await startInstance({ ...env, RATE_LIMIT: '0.01', RATE_LIMIT_BURST: '2' });
    try {
      const tokens = [
        await provider.signIn('victor'),
        await provider.signIn('victor'),
        await provider.signIn('victor'),
      ];
      const statuses = [];
      for (const token of tokens) statuses.push((await asToken(token, '{ me { email } }', {}, limited.url)).status);
      expect(statuses).toEqual([200, 200, 429]);
      const key = await sendGraphQL(limited.url, '{ me { email } }', { key: server.keys.viewer });
      expect(key.status).toBe(200);
    } finally {
      await limited.close();
    }
  });
});

describe('the principal cache', () => {
  it('drops the entries of tokens that expired: a renewed token is a new entry, the old one is never asked again', () => {
    const expired: Principal = {
      userId: 1,
      credential: 'BEARER_TOKEN',
      holder: 'user:1',
      expiresAt: new Date(Date.now() - 1_000),
      permission: 'READ_ONLY',
      isAdmin: false,
      activeOrganizationId: null,
      roles: new Map(),
      organizationIds: [],
    };
    const before = cachedPrincipals();
    for (let n = 0; n < 1_000; n++)
      rememberPrincipal(`expired token ${n}`, expired, true, { readAt: principalGeneration() });
    expect(cachedPrincipals() - before).toBeLessThan(300);
  });
});
