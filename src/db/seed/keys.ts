import { createApiKey } from '../../auth/api-keys.js';
import type { ApiKeyPermission } from '../../generated/prisma/enums.js';
import type { Prisma } from '../index.js';
import { users } from './data.js';

/**
 * The demo users who get a key, and what their key may do: each role of each organization, a user
 * of both, a user who left one for the other, and a platform administrator.
 */
export const demoKeyHolders = {
  owner: 'ADMIN',
  admin: 'ADMIN',
  member: 'READ_WRITE',
  viewer: 'READ_ONLY',
  globexOwner: 'ADMIN',
  globexAdmin: 'ADMIN',
  globexMember: 'READ_WRITE',
  globexViewer: 'READ_ONLY',
  both: 'READ_WRITE',
  former: 'READ_WRITE',
  platformAdmin: 'READ_ONLY',
} as const satisfies Partial<Record<keyof typeof users, ApiKeyPermission>>;

export type DemoKeys = Record<keyof typeof demoKeyHolders, string>;

/** Issues one key per demo role; the owner's secret is `ownerSecret` when given (DEMO_API_KEY). */
export async function issueDemoKeys(prisma: Pick<Prisma, 'apiKey' | 'user'>, ownerSecret?: string): Promise<DemoKeys> {
  const keys = {} as DemoKeys;
  for (const [holder, permission] of Object.entries(demoKeyHolders) as [keyof DemoKeys, ApiKeyPermission][]) {
    const user = await prisma.user.findUniqueOrThrow({ where: { email: users[holder].email } });
    const secret = holder === 'owner' ? ownerSecret : undefined;
    keys[holder] = (await createApiKey(prisma, { userId: user.id, name: `demo ${holder}`, permission, secret })).secret;
  }
  return keys;
}
