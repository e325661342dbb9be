import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demo } from '../src/db/seed/index.js';
import { expectNothingChanged, failure, keyFor } from './helpers/changes.js';
import { demoOrganizationIds } from './helpers/demo-ids.js';
import { startTestServer, type TestServer } from './helpers/server.js';

let server: TestServer;
const user = { owner: 0, admin: 0, member: 0, viewer: 0 };
const membership = { owner: 0, admin: 0, member: 0, viewer: 0, memberInGlobex: 0, globexOwner: 0 };
let org: Awaited<ReturnType<typeof demoOrganizationIds>>;
beforeAll(async () => {
  server = await startTestServer();
  const prisma = server.database.prisma;
  org = await demoOrganizationIds(prisma);
  for (const key of ['owner', 'admin', 'member', 'viewer'] as const) {
    user[key] = (await prisma.user.findUniqueOrThrow({ where: { email: demo.users[key].email } })).id;
    membership[key] = (
      await prisma.userOrganization.findFirstOrThrow({ where: { userId: user[key], organizationId: org.acme } })
    ).id;
  }
  membership.memberInGlobex = (
    await prisma.userOrganization.findFirstOrThrow({ where: { userId: user.member, organizationId: org.globex } })
  ).id;
  const globexOwner = await prisma.user.findUniqueOrThrow({ where: { email: demo.users.globexOwner.email } });
  membership.globexOwner = (await prisma.userOrganization.findFirstOrThrow({ where: { userId: globexOwner.id } })).id;
});
afterAll(() => server?.close());

const prisma = () => server.database.prisma;
const updateMe = `mutation($input: UpdateMeInput!) { updateMe(input: $input) { user { rowId firstName lastName createdAt updatedAt } } }`;
const updateRole = `mutation($input: UpdateMemberRoleInput!) { updateMemberRole(input: $input) { membership { rowId role userId organizationId } } }`;
const removeMember = `mutation($input: RemoveMemberInput!) { removeMember(input: $input) { deletedRowId deletedId } }`;
const roleOf = (id: number) => prisma().userOrganization.findUnique({ where: { id }, select: { role: true } });

describe('user info', () => {
  it("updates the caller's name, trimmed; updatedAt moves, createdAt stays; one action log entry", async () => {
    const before = await prisma().user.findUniqueOrThrow({ where: { id: user.owner } });
    const logs = await prisma().userActionLog.count();
    const response = await server.graphql(updateMe, { input: { firstName: '  Olivia-Ann ', lastName: 'Owner-Smith' } });
    expect(response.errors).toBeUndefined();
    const row = response.data!.updateMe.user;
    expect(row).toMatchObject({
      rowId: user.owner,
      firstName: 'Olivia-Ann',
      lastName: 'Owner-Smith',
      createdAt: before.createdAt.toISOString(),
    });
    expect(Date.parse(row.updatedAt)).toBeGreaterThan(before.updatedAt.getTime());
    expect(await prisma().userActionLog.count()).toBe(logs + 1);
    const entry = await prisma().userActionLog.findFirstOrThrow({ orderBy: { id: 'desc' } });
    expect(entry).toMatchObject({
      userId: user.owner,
      organizationId: org.acme,
      method: 'UPDATE',
      entityType: 'User',
      entityId: user.owner,
    });
  });

  it('refuses an empty first name or an overlong last name, changing nothing', async () => {
    const watched = () => prisma().user.findUniqueOrThrow({ where: { id: user.admin } });
    const empty = await expectNothingChanged(
      server,
      () => server.graphql(updateMe, { input: { firstName: '   ' } }, server.keys.admin),
      watched,
    );
    expect(failure(empty)).toEqual({ code: 'BAD_USER_INPUT', field: 'input.firstName' });
    const long = await expectNothingChanged(
      server,
      () => server.graphql(updateMe, { input: { lastName: 'x'.repeat(101) } }, server.keys.admin),
      watched,
    );
    expect(failure(long)).toEqual({ code: 'BAD_USER_INPUT', field: 'input.lastName' });
  });

  it('refuses a read-only key', async () => {
    const response = await expectNothingChanged(server, () =>
      server.graphql(updateMe, { input: { firstName: 'V' } }, server.keys.viewer),
    );
    expect(failure(response).code).toBe('FORBIDDEN');
  });

  it("offers the caller's organizations as choices", async () => {
    const response = await server.graphql(`{ organizationChoices { value label } }`, {}, server.keys.member);
    expect(response.data!.organizationChoices).toEqual([
      { value: String(org.acme), label: demo.organizations.acme.name },
      { value: String(org.globex), label: demo.organizations.globex.name },
    ]);
    const owner = await server.graphql(`{ organizationChoices { value } }`, {}, server.keys.viewer);
    expect(owner.data!.organizationChoices).toEqual([{ value: String(org.acme) }]);
  });
});

describe('member roles', () => {
  it('lets an owner change a role, by rowId or by global id', async () => {
    const byRowId = await server.graphql(updateRole, { input: { rowId: membership.viewer, role: 'MEMBER' } });
    expect(byRowId.errors).toBeUndefined();
    expect(byRowId.data!.updateMemberRole.membership).toEqual({
      rowId: membership.viewer,
      role: 'MEMBER',
      userId: user.viewer,
      organizationId: org.acme,
    });
    const id = Buffer.from(`Membership:${membership.viewer}`).toString('base64');
    const byId = await server.graphql(updateRole, { input: { id, role: 'VIEWER' } });
    expect(byId.data!.updateMemberRole.membership.role).toBe('VIEWER');
  });

  it('refuses a target given twice or not at all', async () => {
    const both = await expectNothingChanged(server, () =>
      server.graphql(updateRole, { input: { rowId: membership.viewer, id: 'TWVtYmVyc2hpcDox', role: 'ADMIN' } }),
    );
    expect(failure(both)).toEqual({ code: 'BAD_USER_INPUT', field: 'input.id' });
    const wrongType = await server.graphql(updateRole, {
      input: { id: Buffer.from('Whiteboard:1').toString('base64'), role: 'ADMIN' },
    });
    expect(failure(wrongType)).toEqual({ code: 'BAD_USER_INPUT', field: 'input.id' });
  });

  it('answers NOT_FOUND for an unknown membership and for one in an organization the caller does not belong to', async () => {
    expect(failure(await server.graphql(updateRole, { input: { rowId: 999_999, role: 'ADMIN' } })).code).toBe(
      'NOT_FOUND',
    );
    const foreign = await expectNothingChanged(
      server,
      () => server.graphql(updateRole, { input: { rowId: membership.globexOwner, role: 'VIEWER' } }),
      () => roleOf(membership.globexOwner),
    );
    expect(failure(foreign).code).toBe('NOT_FOUND');
  });

  it('refuses anyone but an owner', async () => {
    const admin = await expectNothingChanged(
      server,
      () => server.graphql(updateRole, { input: { rowId: membership.viewer, role: 'ADMIN' } }, server.keys.admin),
      () => roleOf(membership.viewer),
    );
    expect(failure(admin).code).toBe('FORBIDDEN');
    // Mia is ADMIN in Globex: an ADMIN key does not make her an owner there.
    const miaAdminKey = await keyFor(server, demo.users.member.email, 'ADMIN');
    const globexAdmin = await server.graphql(
      updateRole,
      { input: { rowId: membership.globexOwner, role: 'MEMBER' } },
      miaAdminKey,
    );
    expect(failure(globexAdmin).code).toBe('FORBIDDEN');
  });

  it('keeps at least one owner: the last owner cannot step down, but can once another owner exists', async () => {
    const last = await expectNothingChanged(
      server,
      () => server.graphql(updateRole, { input: { rowId: membership.owner, role: 'ADMIN' } }),
      () => roleOf(membership.owner),
    );
    expect(failure(last).code).toBe('CONFLICT');

    expect(
      (await server.graphql(updateRole, { input: { rowId: membership.admin, role: 'OWNER' } })).errors,
    ).toBeUndefined();
    expect(
      (await server.graphql(updateRole, { input: { rowId: membership.owner, role: 'ADMIN' } })).errors,
    ).toBeUndefined();
    // Adam, now the only owner, acts as one at once (no stale cached role), and Olivia no longer does.
    expect(
      failure(
        await server.graphql(updateRole, { input: { rowId: membership.admin, role: 'ADMIN' } }, server.keys.admin),
      ).code,
    ).toBe('CONFLICT');
    expect(failure(await server.graphql(updateRole, { input: { rowId: membership.viewer, role: 'ADMIN' } })).code).toBe(
      'FORBIDDEN',
    );
    expect(
      (await server.graphql(updateRole, { input: { rowId: membership.owner, role: 'OWNER' } }, server.keys.admin))
        .errors,
    ).toBeUndefined();
    expect(
      (await server.graphql(updateRole, { input: { rowId: membership.admin, role: 'ADMIN' } })).errors,
    ).toBeUndefined();
  });
});

describe('removing members', () => {
  it('refuses a read-write key and an admin removing an owner', async () => {
    const member = await expectNothingChanged(server, () =>
      server.graphql(removeMember, { input: { rowId: membership.viewer } }, server.keys.member),
    );
    expect(failure(member).code).toBe('FORBIDDEN');
    const admin = await expectNothingChanged(server, () =>
      server.graphql(removeMember, { input: { rowId: membership.owner } }, server.keys.admin),
    );
    expect(failure(admin)).toEqual({ code: 'FORBIDDEN' });
  });

  it('answers NOT_FOUND for an unknown membership or one of another organization', async () => {
    expect(failure(await server.graphql(removeMember, { input: { rowId: 999_999 } })).code).toBe('NOT_FOUND');
    const foreign = await expectNothingChanged(server, () =>
      server.graphql(removeMember, { input: { rowId: membership.globexOwner } }),
    );
    expect(failure(foreign).code).toBe('NOT_FOUND');
  });

  it('does not let the last owner leave', async () => {
    const response = await expectNothingChanged(server, () =>
      server.graphql(removeMember, { input: { rowId: membership.owner } }),
    );
    expect(failure(response).code).toBe('CONFLICT');
  });

  it('lets an admin remove a viewer, whose active organization becomes none', async () => {
    const response = await server.graphql(removeMember, { input: { rowId: membership.viewer } }, server.keys.admin);
    expect(response.errors).toBeUndefined();
    expect(response.data!.removeMember.deletedRowId).toBe(membership.viewer);
    expect(await roleOf(membership.viewer)).toBeNull();
    expect((await prisma().user.findUniqueOrThrow({ where: { id: user.viewer } })).activeOrganizationId).toBeNull();
    // At once, the viewer's key sees nothing of Acme any more.
    const boards = await server.graphql(`{ whiteboards { totalCount } }`, {}, server.keys.viewer);
    expect(boards.data!.whiteboards.totalCount).toBe(0);
  });

  it('lets a member leave; the active organization moves to another membership', async () => {
    const logs = await prisma().userActionLog.count();
    const response = await server.graphql(removeMember, { input: { rowId: membership.member } }, server.keys.member);
    expect(response.errors).toBeUndefined();
    expect(await prisma().userActionLog.count()).toBe(logs + 1);
    expect((await prisma().user.findUniqueOrThrow({ where: { id: user.member } })).activeOrganizationId).toBe(
      org.globex,
    );
    const me = await server.graphql(`{ organizationChoices { value } }`, {}, server.keys.member);
    expect(me.data!.organizationChoices).toEqual([{ value: String(org.globex) }]);
  });
});
