import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, hashSecret } from '../src/auth/api-keys.js';
import { demo } from '../src/db/seed/index.js';
import { rest } from './helpers/rest.js';
import { startTestServer, type TestServer } from './helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server?.close());

const userId = (email: string) =>
  server.database.prisma.user.findUniqueOrThrow({ where: { email } }).then((user) => user.id);
const refusal = (response: { status: number; errors?: { extensions?: Record<string, unknown> }[] }) => [
  response.status,
  response.errors?.[0]?.extensions?.code,
];

describe('API keys on /graphql', () => {
  it('refuses a missing or unknown key with 401 UNAUTHENTICATED', async () => {
    expect(refusal(await server.graphql('{ me { rowId } }', {}, null))).toEqual([401, 'UNAUTHENTICATED']);
    expect(refusal(await server.graphql('{ me { rowId } }', {}, 'wbg_not-a-key'))).toEqual([401, 'UNAUTHENTICATED']);
  });

  it('refuses an expired key, and the key of an inactive user', async () => {
    const prisma = server.database.prisma;
    const expired = await createApiKey(prisma, {
      userId: await userId(demo.users.owner.email),
      name: 'expired',
      permission: 'READ_ONLY',
      expiresAt: new Date(Date.now() - 1000),
    });
    expect(refusal(await server.graphql('{ me { rowId } }', {}, expired.secret))).toEqual([401, 'UNAUTHENTICATED']);
    const inactive = await createApiKey(prisma, {
      userId: await userId(demo.users.inactive.email),
      name: 'inactive',
      permission: 'READ_ONLY',
    });
    expect(refusal(await server.graphql('{ me { rowId } }', {}, inactive.secret))).toEqual([401, 'UNAUTHENTICATED']);
  });

  it('issues a key whose secret is shown once and stored only as a hash, lists it, and revokes it at once', async () => {
    const created = await server.graphql(
      `mutation { createApiKey(input: { name: "ci", permission: READ_ONLY }) { secret apiKey { id rowId prefix name permission expiresAt } } }`,
    );
    expect(created.errors).toBeUndefined();
    const { secret, apiKey } = created.data!.createApiKey;
    expect(secret).toMatch(/^wbg_[A-Za-z0-9_-]{43}$/);
    expect(secret.startsWith(apiKey.prefix)).toBe(true);
    const stored = await server.database.prisma.apiKey.findUniqueOrThrow({ where: { id: apiKey.rowId } });
    expect(stored.secretHash).toBe(hashSecret(secret));
    expect(JSON.stringify(stored)).not.toContain(secret);

    const me = await server.graphql(
      '{ me { email } apiKeys { edges { node { prefix name lastUsedAt } } } }',
      {},
      secret,
    );
    expect(me.data!.me.email).toBe(demo.users.owner.email);
    expect(me.data!.apiKeys.edges.map((edge: any) => edge.node.name)).toContain('ci');

    const revoked = await server.graphql(
      `mutation($id: ID!) { revokeApiKey(input: { id: $id }) { apiKey { revokedAt } } }`,
      { id: apiKey.id },
    );
    expect(Date.now() - Date.parse(revoked.data!.revokeApiKey.apiKey.revokedAt)).toBeLessThan(60_000);
    expect(refusal(await server.graphql('{ me { rowId } }', {}, secret))).toEqual([401, 'UNAUTHENTICATED']);
  });

  it('never issues a key stronger than the one asking', async () => {
    const response = await server.graphql(
      `mutation { createApiKey(input: { name: "up", permission: ADMIN }) { secret } }`,
      {},
      server.keys.member,
    );
    // A field error: the answer has data (null), so it is 200 with the code in the error.
    expect(refusal(response)).toEqual([200, 'FORBIDDEN']);
  });

  it('writes one action log entry with each change, in the same transaction', async () => {
    const before = await server.database.prisma.userActionLog.count();
    await server.graphql(`mutation { createApiKey(input: { name: "logged", permission: READ_ONLY }) { secret } }`);
    const latest = await server.database.prisma.userActionLog.findFirst({ orderBy: { id: 'desc' } });
    expect(await server.database.prisma.userActionLog.count()).toBe(before + 1);
    expect(latest).toMatchObject({
      method: 'CREATE',
      entityType: 'ApiKey',
      userId: await userId(demo.users.owner.email),
    });
  });
});

describe('the active organization', () => {
  it('switches among the caller’s memberships only', async () => {
    const globex = await server.database.prisma.organization.findFirstOrThrow({
      where: { name: demo.organizations.globex.name },
    });
    const switched = await server.graphql(
      `mutation($id: Int!) { updateActiveOrganization(input: { organizationId: $id }) { user { organizationId activeOrganization { name } } } }`,
      { id: globex.id },
      server.keys.member,
    );
    expect(switched.data!.updateActiveOrganization.user).toEqual({
      organizationId: globex.id,
      activeOrganization: { name: globex.name },
    });
    const me = await server.graphql('{ me { organizationId } }', {}, server.keys.member);
    expect(me.data!.me.organizationId).toBe(globex.id);

    const refused = await server.graphql(
      `mutation($id: Int!) { updateActiveOrganization(input: { organizationId: $id }) { user { rowId } } }`,
      { id: globex.id },
    );
    expect(refusal(refused)).toEqual([200, 'NOT_FOUND']);
  });
});

describe('API keys on the REST door', () => {
  it('answers 403 Not authenticated to a missing, unknown, revoked or expired key, as the legacy service did', async () => {
    const owner = await userId(demo.users.owner.email);
    const revoked = await createApiKey(server.database.prisma, {
      userId: owner,
      name: 'revoked',
      permission: 'READ_ONLY',
    });
    await server.database.prisma.apiKey.update({ where: { id: revoked.id }, data: { revokedAt: new Date() } });
    const expired = await createApiKey(server.database.prisma, {
      userId: owner,
      name: 'expired',
      permission: 'READ_ONLY',
      expiresAt: new Date(Date.now() - 1000),
    });
    for (const key of [null, 'wbg_not-a-key', revoked.secret, expired.secret]) {
      const response = await rest(server, 'GET', '/api/whiteboard/v1/', { key });
      expect([response.status, response.body]).toEqual([403, { detail: 'Not authenticated' }]);
    }
  });
});

describe('changes made outside this process (another gateway process, the CLI, plain SQL)', () => {
  /** Asks until `check` holds, for at most 3 s: a notification (or a reconnect) takes moments, the principal cache would hold 10 s. */
  async function soon(check: () => Promise<boolean>): Promise<boolean> {
    for (
      const deadline = Date.now() + 3_000;
      Date.now() < deadline;
      await new Promise((resolve) => setTimeout(resolve, 50))
    ) {
      if (await check()) return true;
    }
    return false;
  }

  const me = (secret: string) => server.graphql('{ me { rowId } }', {}, secret);

  /** A new read-only key of the demo member, checked to be answered (200) first. */
  async function memberKey(name: string): Promise<string> {
    const key = await createApiKey(server.database.prisma, {
      userId: await userId(demo.users.member.email),
      name,
      permission: 'READ_ONLY',
    });
    expect((await me(key.secret)).status).toBe(200);
    return key.secret;
  }

  /** Revokes the key by plain SQL: its next requests are refused (401) within moments. */
  async function expectRevokedBySql(secret: string) {
    await server.database.prisma
      .$executeRaw`UPDATE api_key SET revoked_at = now() WHERE secret_hash = ${hashSecret(secret)}`;
    expect(await soon(async () => (await me(secret)).status === 401)).toBe(true);
  }

  it('a key revoked by plain SQL is refused at once, not after the cache period', async () => {
    await expectRevokedBySql(await memberKey('revoked elsewhere'));
  });

  it('listens again after losing its connection (PostgreSQL), and so still refuses a key revoked afterwards', async () => {
    const prisma = server.database.prisma;
    const secret = await memberKey('revoked after a reconnect');
    if (server.database.engine.kind === 'postgres') {
      const listening = async () =>
        (
          await prisma.$queryRaw<
            { n: number }[]
          >`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN%'`
        )[0].n;
      await prisma.$queryRaw`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN%'`;
      expect(await soon(async () => (await listening()) === 1)).toBe(true);
    }
    // Cached again after the reconnect: only a notification can end it before 10 s.
    expect((await me(secret)).status).toBe(200);
    await expectRevokedBySql(secret);
  });

  it('a membership removed by plain SQL takes its organization away from the next requests', async () => {
    const prisma = server.database.prisma;
    const boards = async () =>
      (await server.graphql('{ whiteboards { totalCount } }', {}, server.keys.viewer)).data?.whiteboards.totalCount;
    expect(await boards()).toBeGreaterThan(0);
    const membership = await prisma.userOrganization.findFirstOrThrow({
      where: { userId: await userId(demo.users.viewer.email) },
    });
    await prisma.$executeRaw`DELETE FROM user_organization WHERE id = ${membership.id}`;
    try {
      expect(await soon(async () => (await boards()) === 0)).toBe(true);
    } finally {
      await prisma.userOrganization.create({ data: membership });
    }
  });
});
