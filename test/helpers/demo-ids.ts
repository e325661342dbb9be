import type { Prisma } from '../../src/db/index.js';
import type { OrgKey } from '../../src/db/seed/data.js';
import { demo } from '../../src/db/seed/index.js';
import type { GraphQLResponse } from './graphql.js';

/** The row ids of the demo organizations, by their key in `demo.organizations`. */
export async function demoOrganizationIds(prisma: Prisma): Promise<Record<OrgKey, number>> {
  const ids: Partial<Record<OrgKey, number>> = {};
  for (const [key, { name }] of Object.entries(demo.organizations) as [OrgKey, { name: string }][]) {
    ids[key] = (await prisma.organization.findFirstOrThrow({ where: { name } })).id;
  }
  return ids as Record<OrgKey, number>;
}

/** A demo board and its organization. */
export type DemoBoard = { rowId: number; organizationId: number };

/** The demo's first board (by id), asked of `gateway` over GraphQL with the owner's key. */
export async function firstBoard(gateway: { graphql(query: string): Promise<GraphQLResponse> }): Promise<DemoBoard> {
  const boards = await gateway.graphql(
    '{ whiteboards(first: 1, orderBy: [{ field: id, direction: ASC }]) { edges { node { rowId organizationId } } } }',
  );
  return boards.data!.whiteboards.edges[0].node;
}
