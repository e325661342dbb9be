import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../src/auth/api-keys.js';
import { demo } from '../src/db/seed/index.js';
import { schema } from '../src/schema/index.js';
import { everyMutation, rootReads } from './helpers/schema-walk.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { expectError } from './helpers/errors.js';

// Generated from the schema: every root connection, lookup by row id, node type and mutation.
let server: TestServer;
/** Keys of one organization each: Acme's owner, and Globex's owner (who is in no other organization). */
let acmeKey: string;
let globexKey: string;

beforeAll(async () => {
  server = await startTestServer();
  acmeKey = server.keys.owner;
  const globexOwner = await server.database.prisma.user.findUniqueOrThrow({
    where: { email: demo.users.globexOwner.email },
  });
  globexKey = (
    await createApiKey(server.database.prisma, { userId: globexOwner.id, name: 'isolation', permission: 'ADMIN' })
  ).secret;
});
afterAll(() => server?.close());

// Shared on purpose: rates are public; a user in both organizations is seen by both.
const sharedTypes = new Set(['Rate', 'User']);

describe('organization isolation', () => {
  const reads = rootReads();

  it('covers every entity family', () => {
    expect(reads.length).toBeGreaterThanOrEqual(24);
  });

  for (const { list, single, type } of rootReads()) {
    if (sharedTypes.has(type)) continue;
    it(`${list}: a key of one organization never reads a row of the other, by list, node id or row id`, async () => {
      const acme = await server.graphql(
        `{ ${list}(first: 100) { totalCount edges { node { id ... on ${type} { rowId } } } } }`,
        {},
        acmeKey,
      );
      const globex = await server.graphql(
        `{ ${list}(first: 100) { totalCount edges { node { id } } } }`,
        {},
        globexKey,
      );
      expect(acme.errors).toBeUndefined();
      const acmeIds: { id: string; rowId: number }[] = acme.data![list].edges.map((edge: any) => edge.node);
      const globexIds = new Set(globex.data![list].edges.map((edge: any) => edge.node.id));
      expect(acmeIds.filter((row) => globexIds.has(row.id))).toEqual([]);

      for (const row of acmeIds.slice(0, 3)) {
        const byNode = await server.graphql(`query($id: ID!) { node(id: $id) { id } }`, { id: row.id }, globexKey);
        expect(byNode.data!.node, `node ${row.id}`).toBeNull();
        if (single) {
          const byRowId = await server.graphql(
            `query($rowId: Int!) { ${single}(rowId: $rowId) { id } }`,
            { rowId: row.rowId },
            globexKey,
          );
          expect(byRowId.data![single], `${single}(${row.rowId})`).toBeNull();
        }
      }
    });
  }

  it('lets a platform admin see every organization', async () => {
    const admin = await server.database.prisma.user.findUniqueOrThrow({
      where: { email: demo.users.platformAdmin.email },
    });
    const key = (
      await createApiKey(server.database.prisma, { userId: admin.id, name: 'platform', permission: 'READ_ONLY' })
    ).secret;
    const response = await server.graphql('{ organizations { totalCount } }', {}, key);
    expect(response.data!.organizations.totalCount).toBe(await server.database.prisma.organization.count());
  });
});

/** A multipart request (GraphQL multipart request spec) carrying one small file as $upload. */
async function sendWithFile(document: string) {
  const form = new FormData();
  form.set('operations', JSON.stringify({ query: document, variables: { upload: null } }));
  form.set('map', JSON.stringify({ 0: ['variables.upload'] }));
  form.set('0', new Blob(['hello'], { type: 'text/plain' }), 'hello.txt');
  const response = await fetch(`${server.url}/graphql`, {
    method: 'POST',
    headers: { 'x-api-key': server.keys.viewer },
    body: form,
  });
  return { status: response.status, ...(await response.json()) };
}

// A public mutation runs without a key, so it does not look at one either (register.test.ts).
const isPublic = (name: string) => schema.getMutationType()!.getFields()[name].extensions.public === true;

describe('read-only keys', () => {
  for (const { name, document, upload } of everyMutation().filter((mutation) => !isPublic(mutation.name))) {
    it(`cannot call ${name}`, async () => {
      const before = await server.database.prisma.userActionLog.count();
      const response = upload ? await sendWithFile(document) : await server.graphql(document, {}, server.keys.viewer);
      expectError(response, 'FORBIDDEN');
      expect(await server.database.prisma.userActionLog.count()).toBe(before);
    });
  }
});
