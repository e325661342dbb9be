import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demo } from '../src/db/seed/index.js';
import { expectForbiddenToEach, expectNothingChanged, failure, keyFor } from './helpers/changes.js';
import { startTestServer, type TestServer } from './helpers/server.js';

let server: TestServer;
const ids = { acme: 0, api01: 0, rotterdam: 0, member: 0 };
beforeAll(async () => {
  server = await startTestServer();
  const prisma = server.database.prisma;
  ids.acme = (await prisma.organization.findFirstOrThrow({ where: { name: demo.organizations.acme.name } })).id;
  ids.api01 = (await prisma.whiteboardObject.findFirstOrThrow({ where: { name: 'api-01' } })).id;
  ids.rotterdam = (await prisma.whiteboardObject.findFirstOrThrow({ where: { name: 'Rotterdam hub' } })).id;
  ids.member = (await prisma.user.findUniqueOrThrow({ where: { email: demo.users.member.email } })).id;
});
afterAll(() => server?.close());

const create = `mutation($input: CreateObjectRepositoryEntryInput!) {
  createObjectRepositoryEntry(input: $input) { objectRepositoryEntry { rowId organizationId objectId authorId name description object { name } } }
}`;
const newest = `{ objectRepositoryEntries(first: 10, orderBy: [{ field: createdAt, direction: DESC }]) { totalCount edges { node { rowId name } } } }`;
const users = `{ objectRepositoryUserChoices { value label } }`;

describe('object repository', () => {
  it("publishes an object to its board's organization, newest first in the list", async () => {
    const created = await server.graphql(
      create,
      { input: { objectId: ids.api01, name: ' API server ', description: '16 cores' } },
      server.keys.member,
    );
    expect(created.errors).toBeUndefined();
    const entry = created.data!.createObjectRepositoryEntry.objectRepositoryEntry;
    expect(entry).toMatchObject({
      organizationId: ids.acme,
      objectId: ids.api01,
      authorId: ids.member,
      name: 'API server',
      description: '16 cores',
      object: { name: 'api-01' },
    });
    const list = await server.graphql(newest, {}, server.keys.viewer);
    expect(list.data!.objectRepositoryEntries.edges[0].node).toEqual({ rowId: entry.rowId, name: 'API server' });
    const log = await server.database.prisma.userActionLog.findFirst({
      where: { entityType: 'ObjectRepositoryEntry', entityId: entry.rowId },
    });
    expect(log).toMatchObject({ method: 'CREATE', userId: ids.member, organizationId: ids.acme });
  });

  it('refuses an empty name and an object of another organization or none, changing nothing', async () => {
    const empty = await expectNothingChanged(server, () =>
      server.graphql(create, { input: { objectId: ids.api01, name: '' } }),
    );
    expect(failure(empty)).toEqual({ code: 'BAD_USER_INPUT', field: 'input.name' });
    for (const objectId of [ids.rotterdam, 999_999]) {
      const response = await expectNothingChanged(server, () =>
        server.graphql(create, { input: { objectId, name: 'x' } }),
      );
      expect(failure(response)).toEqual({ code: 'BAD_USER_INPUT', field: 'input.objectId' });
    }
  });

  it('is refused to a read-only key and to the viewer role, changing nothing', async () => {
    const viewer = await keyFor(server, demo.users.viewer.email, 'READ_WRITE');
    await expectForbiddenToEach(server, [server.keys.viewer, viewer], (key) =>
      server.graphql(create, { input: { objectId: ids.api01, name: 'x' } }, key),
    );
  });

  it("offers the authors of the entries of the caller's organizations as choices", async () => {
    const acme = (await server.graphql(users, {}, server.keys.viewer)).data!.objectRepositoryUserChoices.map(
      (choice: any) => choice.label,
    );
    expect(acme).toEqual(expect.arrayContaining(['Olivia Owner', 'Adam Admin']));
    expect(acme).not.toContain('Gustav Owner');
    const both = (await server.graphql(users, {}, server.keys.member)).data!.objectRepositoryUserChoices.map(
      (choice: any) => choice.label,
    );
    expect(both).toContain('Gustav Owner');
  });

  it('looks an entry up by row id, and answers null for one of another organization', async () => {
    const foreign = await server.database.prisma.objectRepositoryEntry.findFirstOrThrow({
      where: { name: 'Refrigerated truck' },
    });
    const response = await server.graphql(`query($rowId: Int!) { objectRepositoryEntry(rowId: $rowId) { name } }`, {
      rowId: foreign.id,
    });
    expect(response.data!.objectRepositoryEntry).toBeNull();
  });
});
