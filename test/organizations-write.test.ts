import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countRows, demo } from '../src/db/seed/index.js';
import { expectNothingChanged, failure } from './helpers/changes.js';
import { demoOrganizationIds } from './helpers/demo-ids.js';
import { postGraphQL } from './helpers/graphql.js';
import { ofTheRequest, startInstance, startTestServer, type TestServer } from './helpers/server.js';

let server: TestServer;
let org: Awaited<ReturnType<typeof demoOrganizationIds>>;
beforeAll(async () => {
  server = await startTestServer();
  org = await demoOrganizationIds(prisma());
});
afterAll(() => server?.close());

const prisma = () => server.database.prisma;
const userId = async (key: keyof typeof demo.users) =>
  (await prisma().user.findUniqueOrThrow({ where: { email: demo.users[key].email } })).id;
const create = `mutation($input: CreateOrganizationInput!) { createOrganization(input: $input) { organization { rowId name rate { code } members { edges { node { role userId } } } } } }`;
const update = `mutation($input: UpdateOrganizationInput!) { updateOrganization(input: $input) { organization { rowId name rateId createdAt updatedAt } } }`;
const remove = `mutation($input: DeleteOrganizationInput!) { deleteOrganization(input: $input) { deletedRowId deletedId } }`;
const info = `query($organizationId: Int) { organizationInfo(organizationId: $organizationId) {
  organization { rowId name rate { code } } memberCount libraryCount whiteboardCount archivedWhiteboardCount } }`;
const organizationRow = (id: number) => () => prisma().organization.findUnique({ where: { id } });

describe('creating organizations', () => {
  it('makes the caller its owner on the FREE rate; the active organization stays; logged in the new organization', async () => {
    const member = await userId('member');
    const response = await server.graphql(create, { input: { name: ' Initech ' } }, server.keys.member);
    expect(response.errors).toBeUndefined();
    const created = response.data!.createOrganization.organization;
    expect(created).toMatchObject({
      name: 'Initech',
      rate: { code: 'FREE' },
      members: { edges: [{ node: { role: 'OWNER', userId: member } }] },
    });
    expect((await prisma().user.findUniqueOrThrow({ where: { id: member } })).activeOrganizationId).toBe(org.acme);
    const entry = await prisma().userActionLog.findFirstOrThrow({ orderBy: { id: 'desc' } });
    expect(entry).toMatchObject({
      userId: member,
      organizationId: created.rowId,
      method: 'CREATE',
      entityType: 'Organization',
      entityId: created.rowId,
    });
    // The new membership counts at once.
    const choices = await server.graphql(`{ organizationChoices { label } }`, {}, server.keys.member);
    expect(choices.data!.organizationChoices.map((choice: { label: string }) => choice.label)).toContain('Initech');
  });

  it('refuses an empty name and an unknown rate, changing nothing', async () => {
    const empty = await expectNothingChanged(server, () => server.graphql(create, { input: { name: '  ' } }));
    expect(failure(empty)).toEqual({ code: 'BAD_USER_INPUT', field: 'input.name' });
    const rate = await expectNothingChanged(server, () =>
      server.graphql(create, { input: { name: 'Umbrella', rateId: 999 } }),
    );
    expect(failure(rate)).toEqual({ code: 'BAD_USER_INPUT', field: 'input.rateId' });
  });

  it('refuses a read-only key', async () => {
    const response = await expectNothingChanged(server, () =>
      server.graphql(create, { input: { name: 'Umbrella' } }, server.keys.viewer),
    );
    expect(failure(response).code).toBe('FORBIDDEN');
  });
});

describe('updating organizations', () => {
  it('lets the owner rename it and change its rate; updatedAt moves, createdAt stays', async () => {
    const before = await prisma().organization.findUniqueOrThrow({ where: { id: org.acme } });
    const enterprise = await prisma().rate.findUniqueOrThrow({ where: { code: 'ENTERPRISE' } });
    const response = await server.graphql(update, {
      input: { rowId: org.acme, name: ' Acme Robotics AG ', rateId: enterprise.id },
    });
    expect(response.errors).toBeUndefined();
    const row = response.data!.updateOrganization.organization;
    expect(row).toMatchObject({
      rowId: org.acme,
      name: 'Acme Robotics AG',
      rateId: enterprise.id,
      createdAt: before.createdAt.toISOString(),
    });
    expect(Date.parse(row.updatedAt)).toBeGreaterThan(before.updatedAt.getTime());
  });

  it('refuses an empty name and an unknown rate', async () => {
    const empty = await expectNothingChanged(
      server,
      () => server.graphql(update, { input: { rowId: org.acme, name: '' } }),
      organizationRow(org.acme),
    );
    expect(failure(empty)).toEqual({ code: 'BAD_USER_INPUT', field: 'input.name' });
    const rate = await expectNothingChanged(
      server,
      () => server.graphql(update, { input: { rowId: org.acme, rateId: 999 } }),
      organizationRow(org.acme),
    );
    expect(failure(rate)).toEqual({ code: 'BAD_USER_INPUT', field: 'input.rateId' });
  });

  it('answers NOT_FOUND for an unknown organization and for one the caller does not belong to', async () => {
    expect(failure(await server.graphql(update, { input: { rowId: 999, name: 'X' } })).code).toBe('NOT_FOUND');
    const foreign = await expectNothingChanged(
      server,
      () => server.graphql(update, { input: { rowId: org.globex, name: 'Mine' } }),
      organizationRow(org.globex),
    );
    expect(failure(foreign).code).toBe('NOT_FOUND');
  });

  it('refuses an admin', async () => {
    const response = await expectNothingChanged(
      server,
      () => server.graphql(update, { input: { rowId: org.acme, name: 'Coup' } }, server.keys.admin),
      organizationRow(org.acme),
    );
    expect(failure(response).code).toBe('FORBIDDEN');
  });
});

describe('organization info and rate choices', () => {
  it('lists the rates', async () => {
    const response = await server.graphql(`{ rateChoices { value label } }`);
    const rates = await prisma().rate.findMany({ orderBy: { id: 'asc' } });
    expect(response.data!.rateChoices).toEqual(rates.map((rate) => ({ value: String(rate.id), label: rate.name })));
  });

  it("counts the active organization's members, libraries and boards in at most two statements", async () => {
    await server.graphql(info);
    const { result, statements } = await server.countStatements(() => server.graphql(info));
    expect(result.errors).toBeUndefined();
    const boards = Object.values(demo.whiteboards).filter((board) => board.organization === 'acme');
    const expected = {
      memberCount: Object.values(demo.users).filter((user) => 'acme' in user.roles).length,
      libraryCount: Object.values(demo.libraries).filter((library) => library.organization === 'acme').length,
      whiteboardCount: boards.length,
      archivedWhiteboardCount: boards.filter((board) => board.archived).length,
    };
    expect(result.data!.organizationInfo).toMatchObject({ organization: { rowId: org.acme }, ...expected });
    expect(expected.archivedWhiteboardCount).toBeGreaterThan(0);
    expect(ofTheRequest(statements).length).toBeLessThanOrEqual(2);
  });

  it('answers null for an organization the caller does not belong to', async () => {
    expect((await server.graphql(info, { organizationId: org.globex })).data!.organizationInfo).toBeNull();
  });
});

describe('deleting organizations', () => {
  it('refuses a confirmation that is not the name', async () => {
    const response = await expectNothingChanged(server, () =>
      server.graphql(remove, { input: { rowId: org.acme, confirmName: 'acme robotics ag' } }),
    );
    expect(failure(response)).toEqual({ code: 'BAD_USER_INPUT', field: 'input.confirmName' });
  });

  it('answers NOT_FOUND for an unknown organization and for one the caller does not belong to', async () => {
    expect(failure(await server.graphql(remove, { input: { rowId: 999, confirmName: 'X' } })).code).toBe('NOT_FOUND');
    const foreign = await expectNothingChanged(server, () =>
      server.graphql(remove, { input: { rowId: org.globex, confirmName: demo.organizations.globex.name } }),
    );
    expect(failure(foreign).code).toBe('NOT_FOUND');
  });

  it('refuses an admin', async () => {
    const response = await expectNothingChanged(server, () =>
      server.graphql(remove, { input: { rowId: org.acme, confirmName: 'Acme Robotics AG' } }, server.keys.admin),
    );
    expect(failure(response).code).toBe('FORBIDDEN');
  });

  it('deletes the organization with everything in it; members move to another organization or none', async () => {
    const before = await countRows(prisma());
    const acmeBoards = await prisma().whiteboard.count({ where: { organizationId: org.acme } });
    const response = await server.graphql(remove, { input: { rowId: org.acme, confirmName: 'Acme Robotics AG' } });
    expect(response.errors).toBeUndefined();
    expect(response.data!.deleteOrganization.deletedRowId).toBe(org.acme);
    const after = await countRows(prisma());
    expect(after.organization).toBe(before.organization - 1);
    expect(after.whiteboard).toBe(before.whiteboard - acmeBoards);
    expect(await prisma().library.count({ where: { organizationId: org.acme } })).toBe(0);
    expect(await prisma().userOrganization.count({ where: { organizationId: org.acme } })).toBe(0);
    // Mia also belongs to Globex and Initech; Olivia belonged to Acme only.
    expect(
      (await prisma().user.findUniqueOrThrow({ where: { id: await userId('member') } })).activeOrganizationId,
    ).not.toBe(org.acme);
    expect(
      (await prisma().user.findUniqueOrThrow({ where: { id: await userId('member') } })).activeOrganizationId,
    ).not.toBeNull();
    expect(
      (await prisma().user.findUniqueOrThrow({ where: { id: await userId('owner') } })).activeOrganizationId,
    ).toBeNull();
    const entry = await prisma().userActionLog.findFirstOrThrow({ orderBy: { id: 'desc' } });
    expect(entry).toMatchObject({
      organizationId: null,
      method: 'DELETE',
      entityType: 'Organization',
      entityId: org.acme,
    });
    expect(await server.graphql(info)).toEqual({ status: 200, data: { organizationInfo: null } });
  });

  it("leaves the deletion's entry of no organization, which the platform admin reads with organization null both ways", async () => {
    const entry = await prisma().userActionLog.findFirstOrThrow({ orderBy: { id: 'desc' } });
    // A relation below (the rate) gives the organization a planned query, which Pothos checks the resolver reads.
    const read = `query($rowId: Int!) {
      actionLog(rowId: $rowId) { rowId organizationId organization { rowId name rate { code } } user { rowId } }
      actionLogs(filter: { entityType: { eq: "Organization" }, method: { eq: DELETE } }) { nodes { rowId organization { rowId name rate { code } } } }
    }`;
    const expected = {
      status: 200,
      data: {
        actionLog: { rowId: entry.id, organizationId: null, organization: null, user: { rowId: entry.userId } },
        actionLogs: { nodes: [{ rowId: entry.id, organization: null }] },
      },
    };
    expect(await server.graphql(read, { rowId: entry.id }, server.keys.platformAdmin)).toEqual(expected);
    // The same document through the resolvers alone: a gateway without read plans over the same database.
    const resolvers = await startInstance({ READ_PLANS: 'false' });
    try {
      expect(
        await postGraphQL(resolvers.url, read, { variables: { rowId: entry.id }, key: server.keys.platformAdmin }),
      ).toEqual(expected);
    } finally {
      await resolvers.close();
    }
  });
});
