import type { Prisma } from '../../src/db/index.js';
import type { OrgKey } from '../../src/db/seed/data.js';
import { demo } from '../../src/db/seed/index.js';

/** The row ids of the demo organizations, by their key in `demo.organizations`. */
export async function demoOrganizationIds(prisma: Prisma): Promise<Record<OrgKey, number>> {
  const ids: Partial<Record<OrgKey, number>> = {};
  for (const [key, { name }] of Object.entries(demo.organizations) as [OrgKey, { name: string }][]) {
    ids[key] = (await prisma.organization.findFirstOrThrow({ where: { name } })).id;
  }
  return ids as Record<OrgKey, number>;
}
