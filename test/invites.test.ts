import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countRows, demo } from '../src/db/seed/index.js';
import { registerWithInvite } from '../src/schema/invites.js';
import { expectForbiddenToEach, expectNothingChanged, failure } from './helpers/changes.js';
import { demoOrganizationIds } from './helpers/demo-ids.js';
import { startTestServer, type TestServer } from './helpers/server.js';

let server: TestServer;
let org: Awaited<ReturnType<typeof demoOrganizationIds>>;
beforeAll(async () => {
  server = await startTestServer();
  org = await demoOrganizationIds(prisma());
});
afterAll(() => server?.close());

const prisma = () => server.database.prisma;
const sha256 = (token: string) => createHash('sha256').update(token).digest('hex');
const create = `mutation($input: CreateUserInviteInput!) { createUserInvite(input: $input) { token userInvite { rowId email role organizationId expiresAt acceptedAt } } }`;
const resend = `mutation($input: ResendUserInviteInput!) { resendUserInvite(input: $input) { token userInvite { rowId expiresAt } } }`;
const remove = `mutation($input: DeleteUserInviteInput!) { deleteUserInvite(input: $input) { deletedRowId } }`;
const accept = `mutation($input: AcceptUserInviteInput!) { acceptUserInvite(input: $input) { membership { role organizationId userId } } }`;
const inviteRow = (id: number) => () => prisma().userInvite.findUnique({ where: { id } });
const pendingInviteId = async () =>
  (await prisma().userInvite.findFirstOrThrow({ where: { email: demo.invites.pending.email } })).id;

async function invite(email: string, role = 'MEMBER', key = server.keys.owner, organizationId?: number) {
  const response = await server.graphql(create, { input: { email, role, organizationId } }, key);
  expect(response.errors).toBeUndefined();
  return response.data!.createUserInvite as {
    token: string;
    userInvite: { rowId: number; email: string; expiresAt: string };
  };
}

describe('creating invites', () => {
  it('stores the email in lower case and only the hash of a one-time token that expires in 7 days; one action log entry', async () => {
    const logs = await prisma().userActionLog.count();
    const { token, userInvite } = await invite(' New.Person@Example.COM ', 'ADMIN');
    expect(userInvite).toMatchObject({
      email: 'new.person@example.com',
      role: 'ADMIN',
      organizationId: org.acme,
      acceptedAt: null,
    });
    expect(token.length).toBeGreaterThanOrEqual(43);
    const row = await prisma().userInvite.findUniqueOrThrow({ where: { id: userInvite.rowId } });
    expect(row.tokenHash).toBe(sha256(token));
    expect(Math.abs(row.expiresAt.getTime() - Date.now() - 7 * 24 * 3600_000)).toBeLessThan(60_000);
    expect(await prisma().userActionLog.count()).toBe(logs + 1);
    expect(await prisma().userActionLog.findFirstOrThrow({ orderBy: { id: 'desc' } })).toMatchObject({
      method: 'CREATE',
      entityType: 'UserInvite',
      entityId: row.id,
    });
  });

  it("refuses a malformed email, a member's email and an email with an open invite", async () => {
    for (const email of ['not-an-email', demo.users.admin.email, demo.invites.pending.email]) {
      const response = await expectNothingChanged(server, () =>
        server.graphql(create, { input: { email, role: 'MEMBER' } }),
      );
      expect(failure(response)).toEqual({ code: 'BAD_USER_INPUT', field: 'input.email' });
    }
  });

  it('answers NOT_FOUND for an organization the caller does not belong to', async () => {
    const response = await expectNothingChanged(server, () =>
      server.graphql(create, { input: { email: 'x@example.com', role: 'MEMBER', organizationId: org.globex } }),
    );
    expect(failure(response).code).toBe('NOT_FOUND');
  });

  it('lets only an owner invite an owner, and refuses read-write and read-only keys', async () => {
    const ownerByAdmin = await expectNothingChanged(server, () =>
      server.graphql(create, { input: { email: 'boss@example.com', role: 'OWNER' } }, server.keys.admin),
    );
    expect(failure(ownerByAdmin).code).toBe('FORBIDDEN');
    await expectForbiddenToEach(server, [server.keys.member, server.keys.viewer], (key) =>
      server.graphql(create, { input: { email: 'y@example.com', role: 'VIEWER' } }, key),
    );
    await invite('boss@example.com', 'OWNER');
  });
});

describe('resending and deleting invites', () => {
  it('rotates the token and the expiry; the old token stops working', async () => {
    const first = await invite('rotate@example.com', 'VIEWER', server.keys.admin);
    const response = await server.graphql(resend, { input: { rowId: first.userInvite.rowId } }, server.keys.admin);
    expect(response.errors).toBeUndefined();
    const { token } = response.data!.resendUserInvite;
    expect(token).not.toBe(first.token);
    const row = await prisma().userInvite.findUniqueOrThrow({ where: { id: first.userInvite.rowId } });
    expect(row.tokenHash).toBe(sha256(token));
    expect(row.expiresAt.getTime()).toBeGreaterThanOrEqual(Date.parse(first.userInvite.expiresAt));
    expect(await prisma().userInvite.count({ where: { tokenHash: sha256(first.token) } })).toBe(0);
  });

  it('answers NOT_FOUND for an unknown invite or one of another organization, and refuses a bad target', async () => {
    expect(failure(await server.graphql(resend, { input: { rowId: 999_999 } })).code).toBe('NOT_FOUND');
    const accepted = await prisma().userInvite.findFirstOrThrow({ where: { organizationId: org.globex } });
    const foreign = await expectNothingChanged(
      server,
      () => server.graphql(resend, { input: { rowId: accepted.id } }),
      inviteRow(accepted.id),
    );
    expect(failure(foreign).code).toBe('NOT_FOUND');
    expect(failure(await server.graphql(resend, { input: {} }))).toEqual({ code: 'BAD_USER_INPUT', field: 'input.id' });
  });

  it('refuses a read-write key', async () => {
    const id = await pendingInviteId();
    const response = await expectNothingChanged(
      server,
      () => server.graphql(resend, { input: { rowId: id } }, server.keys.member),
      inviteRow(id),
    );
    expect(failure(response).code).toBe('FORBIDDEN');
    const deletion = await expectNothingChanged(
      server,
      () => server.graphql(remove, { input: { rowId: id } }, server.keys.member),
      inviteRow(id),
    );
    expect(failure(deletion).code).toBe('FORBIDDEN');
  });

  it('deletes an invite, whose token then opens nothing', async () => {
    const { token, userInvite } = await invite('gone@example.com');
    const response = await server.graphql(remove, { input: { rowId: userInvite.rowId } }, server.keys.admin);
    expect(response.data!.deleteUserInvite.deletedRowId).toBe(userInvite.rowId);
    expect(await inviteRow(userInvite.rowId)()).toBeNull();
    expect(failure(await server.graphql(remove, { input: { rowId: userInvite.rowId } })).code).toBe('NOT_FOUND');
    await expect(registerWithInvite({ token, firstName: 'Gone' })).rejects.toMatchObject({
      extensions: { code: 'BAD_USER_INPUT', field: 'input.token' },
    });
  });
});

describe('accepting invites', () => {
  it('adds the membership of the caller whose email the invite is for; the token is single use; resending it then conflicts', async () => {
    const created = await server.graphql(
      `mutation { createOrganization(input: { name: "Initech" }) { organization { rowId } } }`,
    );
    const initech = created.data!.createOrganization.organization.rowId;
    const { token, userInvite } = await invite(demo.users.admin.email, 'MEMBER', server.keys.owner, initech);

    const wrongUser = await expectNothingChanged(server, () =>
      server.graphql(accept, { input: { token } }, server.keys.member),
    );
    expect(failure(wrongUser)).toEqual({ code: 'BAD_USER_INPUT', field: 'input.token' });

    const response = await server.graphql(accept, { input: { token } }, server.keys.admin);
    expect(response.errors).toBeUndefined();
    const admin = await prisma().user.findUniqueOrThrow({ where: { email: demo.users.admin.email } });
    expect(response.data!.acceptUserInvite.membership).toEqual({
      role: 'MEMBER',
      organizationId: initech,
      userId: admin.id,
    });
    expect((await inviteRow(userInvite.rowId)())!.acceptedAt).not.toBeNull();
    const choices = await server.graphql(`{ organizationChoices { value } }`, {}, server.keys.admin);
    expect(choices.data!.organizationChoices).toContainEqual({ value: String(initech) });

    const again = await expectNothingChanged(server, () =>
      server.graphql(accept, { input: { token } }, server.keys.admin),
    );
    expect(failure(again)).toEqual({ code: 'BAD_USER_INPUT', field: 'input.token' });
    expect(failure(await server.graphql(resend, { input: { rowId: userInvite.rowId } })).code).toBe('CONFLICT');
  });

  it('refuses expired and unknown tokens', async () => {
    for (const token of [demo.invites.expired.token, 'no-such-token']) {
      const response = await expectNothingChanged(server, () =>
        server.graphql(accept, { input: { token } }, server.keys.admin),
      );
      expect(failure(response)).toEqual({ code: 'BAD_USER_INPUT', field: 'input.token' });
    }
  });
});

describe('registering through an invite', () => {
  it('creates the user, the membership and a first key in one transaction; the key works at once', async () => {
    const before = await countRows(prisma());
    const result = await registerWithInvite({
      token: demo.invites.pending.token,
      firstName: ' Nina ',
      lastName: 'Newcomer',
    });
    const after = await countRows(prisma());
    expect([after.user, after.userOrganization, after.apiKey, after.userActionLog]).toEqual([
      before.user + 1,
      before.userOrganization + 1,
      before.apiKey + 1,
      before.userActionLog + 1,
    ]);
    const me = await server.graphql(
      `{ me { rowId email firstName organizationId memberships { edges { node { role } } } } }`,
      {},
      result.apiKeySecret,
    );
    expect(me.data!.me).toEqual({
      rowId: result.userId,
      email: demo.invites.pending.email,
      firstName: 'Nina',
      organizationId: org.acme,
      memberships: { edges: [{ node: { role: 'MEMBER' } }] },
    });
  });

  it('refuses a used, expired or unknown token and a bad name, changing nothing', async () => {
    for (const token of [
      demo.invites.pending.token,
      demo.invites.expired.token,
      demo.invites.accepted.token,
      'no-such-token',
    ]) {
      const before = await countRows(prisma());
      await expect(registerWithInvite({ token, firstName: 'X' })).rejects.toMatchObject({
        extensions: { code: 'BAD_USER_INPUT', field: 'input.token' },
      });
      expect(await countRows(prisma())).toEqual(before);
    }
    const { token } = await invite('fresh@example.com');
    await expect(registerWithInvite({ token, firstName: ' ' })).rejects.toMatchObject({
      extensions: { code: 'BAD_USER_INPUT', field: 'input.firstName' },
    });
  });

  it('refuses an email that already has a user, leaving the invite open', async () => {
    const { token, userInvite } = await invite('fresh.user@example.com');
    await prisma().user.create({ data: { email: 'Fresh.User@example.com', firstName: 'Fresh' } });
    const before = await countRows(prisma());
    await expect(registerWithInvite({ token, firstName: 'Fresh' })).rejects.toMatchObject({
      extensions: { code: 'CONFLICT' },
    });
    expect(await countRows(prisma())).toEqual(before);
    expect((await inviteRow(userInvite.rowId)())!.acceptedAt).toBeNull();
  });

  it('takes an email literally: `_` or `%` in it matches no other user (Prisma sends the match as ILIKE)', async () => {
    await prisma().user.create({ data: { email: 'ana.smith@example.com', firstName: 'Ana' } });
    const { token } = await invite('ana_smith@example.com');
    const result = await registerWithInvite({ token, firstName: 'Another Ana' });
    expect(await prisma().user.findUnique({ where: { id: result.userId }, select: { email: true } })).toEqual({
      email: 'ana_smith@example.com',
    });
  });
});
