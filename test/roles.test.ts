import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../src/auth/api-keys.js';
import { keyAllows, permissions, roleAllows, type Action } from '../src/auth/roles.js';
import { demo } from '../src/db/seed/index.js';
import type { ApiKeyPermission, Role } from '../src/generated/prisma/enums.js';
import { roleMatrixMarkdown } from './helpers/role-matrix.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { webhookEnv } from './helpers/webhooks.js';
import { expectError } from './helpers/errors.js';

// Walks the role matrix of src/auth/roles.ts with real operations: every action, every role, every key permission.
let server: TestServer;
let acmeId: number;
let viewerMembershipId: number;
const holders: Record<Role, string> = {
  OWNER: demo.users.owner.email,
  ADMIN: demo.users.admin.email,
  MEMBER: demo.users.member.email,
  VIEWER: demo.users.viewer.email,
};
const keys = {} as Record<Role, Record<ApiKeyPermission, string>>;

beforeAll(async () => {
  server = await startTestServer(webhookEnv);
  const prisma = server.database.prisma;
  acmeId = (await prisma.organization.findFirstOrThrow({ where: { name: demo.organizations.acme.name } })).id;
  for (const [role, email] of Object.entries(holders) as [Role, string][]) {
    const user = await prisma.user.findUniqueOrThrow({ where: { email } });
    if (role === 'VIEWER')
      viewerMembershipId = (
        await prisma.userOrganization.findFirstOrThrow({ where: { userId: user.id, organizationId: acmeId } })
      ).id;
    keys[role] = {} as Record<ApiKeyPermission, string>;
    for (const permission of ['READ_ONLY', 'READ_WRITE', 'ADMIN'] as const) {
      keys[role][permission] = (
        await createApiKey(prisma, { userId: user.id, name: `${role} ${permission}`, permission })
      ).secret;
    }
  }
});
afterAll(() => server?.close());

let sequence = 0;
const freshBoard = async () => {
  const author = await server.database.prisma.user.findUniqueOrThrow({ where: { email: holders.OWNER } });
  return (
    await server.database.prisma.whiteboard.create({
      data: { name: `Target ${++sequence}`, organizationId: acmeId, authorId: author.id },
    })
  ).id;
};

/** One real operation per action of the matrix, in Acme. */
const operations: Record<Action, () => Promise<{ document: string; variables: Record<string, unknown> }>> = {
  read: async () => ({
    document: `query($id: Int!) { whiteboards(filter: { organizationId: { eq: $id } }) { totalCount } }`,
    variables: { id: acmeId },
  }),
  editContent: async () => ({
    document: `mutation($org: Int!) { createWhiteboard(input: { name: "Role check", organizationId: $org }) { whiteboard { rowId } } }`,
    variables: { org: acmeId },
  }),
  archive: async () => ({
    document: `mutation($rowId: Int!) { archiveWhiteboard(input: { rowId: $rowId }) { whiteboard { inTheArchive } } }`,
    variables: { rowId: await freshBoard() },
  }),
  delete: async () => ({
    document: `mutation($rowId: Int!) { deleteWhiteboard(input: { rowId: $rowId }) { deletedRowId } }`,
    variables: { rowId: await freshBoard() },
  }),
  manageLibraries: async () => ({
    document: `mutation($org: Int!) { createLibrary(input: { name: "Role check", organizationId: $org }) { library { rowId } } }`,
    variables: { org: acmeId },
  }),
  manageMembers: async () => ({
    document: `mutation($org: Int!, $email: String!) { createUserInvite(input: { email: $email, role: VIEWER, organizationId: $org }) { token } }`,
    variables: { org: acmeId, email: `invitee${++sequence}@example.com` },
  }),
  changeRoles: async () => ({
    document: `mutation($rowId: Int!) { updateMemberRole(input: { rowId: $rowId, role: VIEWER }) { membership { role } } }`,
    variables: { rowId: viewerMembershipId },
  }),
  manageWebhooks: async () => ({
    document: `mutation($org: Int!) { createWebhookEndpoint(input: { organizationId: $org, url: "https://hooks.example.com/in", eventTypes: ["*"] }) { secret } }`,
    variables: { org: acmeId },
  }),
  manageOrganization: async () => ({
    document: `mutation($rowId: Int!, $name: String!) { updateOrganization(input: { rowId: $rowId, name: $name }) { organization { name } } }`,
    variables: { rowId: acmeId, name: demo.organizations.acme.name },
  }),
};

it('docs/authentication.md shows the matrix the code enforces', () => {
  expect(readFileSync(new URL('../docs/authentication.md', import.meta.url), 'utf8')).toContain(roleMatrixMarkdown());
});

describe.each(Object.keys(permissions) as Action[])('%s', (action) => {
  const cases: [Role, ApiKeyPermission][] = (Object.keys(holders) as Role[]).flatMap((role) =>
    (['READ_ONLY', 'READ_WRITE', 'ADMIN'] as const).map((key): [Role, ApiKeyPermission] => [role, key]),
  );
  it.each(cases)('a %s with a %s key', async (role, key) => {
    const allowed = roleAllows(role, action) && keyAllows(key, permissions[action].key);
    const { document, variables } = await operations[action]();
    const logBefore = await server.database.prisma.userActionLog.count();
    const response = await server.graphql(document, variables, keys[role][key]);
    const logAfter = await server.database.prisma.userActionLog.count();
    if (allowed) {
      expect(response.errors, JSON.stringify(response.errors)).toBeUndefined();
      expect(logAfter - logBefore).toBe(action === 'read' ? 0 : 1);
    } else {
      expectError(response, 'FORBIDDEN');
      expect(logAfter).toBe(logBefore);
    }
  });
});
