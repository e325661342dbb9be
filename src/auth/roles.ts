import type { ApiKeyPermission, Role } from '../generated/prisma/enums.js';

/**
 * Who may do what in an organization: the roles allowed, and the least key permission the request's
 * key must carry. docs/authentication.md prints this table; tests walk it.
 */
export const permissions = {
  read: {
    what: 'read boards, libraries, members and the action log',
    roles: ['OWNER', 'ADMIN', 'MEMBER', 'VIEWER'],
    key: 'READ_ONLY',
  },
  editContent: {
    what: 'create and edit boards and everything on them',
    roles: ['OWNER', 'ADMIN', 'MEMBER'],
    key: 'READ_WRITE',
  },
  archive: { what: 'archive and unarchive boards', roles: ['OWNER', 'ADMIN', 'MEMBER'], key: 'READ_WRITE' },
  delete: { what: 'delete boards', roles: ['OWNER', 'ADMIN'], key: 'READ_WRITE' },
  manageLibraries: {
    what: 'create, edit and delete libraries, classes, attributes and textures',
    roles: ['OWNER', 'ADMIN'],
    key: 'READ_WRITE',
  },
  manageMembers: { what: 'invite and remove members', roles: ['OWNER', 'ADMIN'], key: 'ADMIN' },
  changeRoles: { what: "change members' roles", roles: ['OWNER'], key: 'ADMIN' },
  manageOrganization: { what: 'rename or delete the organization', roles: ['OWNER'], key: 'ADMIN' },
  manageWebhooks: {
    what: 'see, add, change and delete webhook endpoints, and redeliver their deliveries',
    roles: ['OWNER', 'ADMIN'],
    key: 'ADMIN',
  },
} as const satisfies Record<string, { what: string; roles: readonly Role[]; key: ApiKeyPermission }>;

export type Action = keyof typeof permissions;

const keyRank: Record<ApiKeyPermission, number> = { READ_ONLY: 0, READ_WRITE: 1, ADMIN: 2 };

export function keyAllows(held: ApiKeyPermission, needed: ApiKeyPermission): boolean {
  return keyRank[held] >= keyRank[needed];
}

export function roleAllows(role: Role | undefined, action: Action): boolean {
  return role !== undefined && (permissions[action].roles as readonly Role[]).includes(role);
}
