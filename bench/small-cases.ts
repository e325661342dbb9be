/**
 * The small requests a real client sends most (issue 20): a lookup of three columns, a refetch by
 * global id, a REST read by id, and a rename through each door. They cost little SQL, so what they
 * measure is the fixed cost of a request: HTTP, the pipeline, the context, logs and metrics.
 */
import type { Case, CaseContext } from './case.js';
import {
  peerLookupQuery,
  peerNodeIdsQuery,
  peerNodeQuery,
  peerRenameQuery,
  peerRestRenameQuery,
  peerWhiteboardQuery,
} from './peer-queries.js';
import { floorGet, graphql, peerGraphql, rest, send } from './requests.js';

const lookupQuery = `query Lookup($rowId: Int!) { whiteboard(rowId: $rowId) { rowId name description } }`;
const nodeQuery = `query Node($id: ID!) { node(id: $id) { ... on Whiteboard { rowId name description } } }`;
const renameQuery = `mutation Rename($input: UpdateWhiteboardInput!) {
  updateWhiteboard(input: $input) { whiteboard { rowId name } }
}`;

const versionsQuery = `query Versions($org: Int!, $offset: Int!) {
  whiteboards(first: 100, offset: $offset, filter: { organizationId: { eq: $org } }) { nodes { rowId version } }
}`;

/** Every board's version now, by row id: the version each request of case v expects is the one after the last it sent. */
async function boardVersions(gatewayUrl: string, keys: CaseContext['keys'], org: number): Promise<Map<number, number>> {
  const versions = new Map<number, number>();
  for (let offset = 0; ; offset += 100) {
    const answer = await send(gatewayUrl, graphql(keys, 0, versionsQuery, { org, offset }));
    const nodes = (answer.body as { data: { whiteboards: { nodes: { rowId: number; version: number }[] } } }).data
      .whiteboards.nodes;
    for (const node of nodes) versions.set(node.rowId, node.version);
    if (nodes.length < 100) return versions;
  }
}

/** The peer's node ids of the boards, in the gateway's order: its id format is its own. */
async function peerNodeIds(peerUrl: string, org: number): Promise<string[]> {
  const answer = await send(peerUrl, peerGraphql(peerNodeIdsQuery, { org }));
  return (answer.body as { data: { allWhiteboards: { nodes: { id: string }[] } } }).data.allWhiteboards.nodes.map(
    (node) => node.id,
  );
}

/** The cases the audited peer (bench/audited-peer.ts) answers too: the renames, whose writes its trigger logs. */
export const auditedCaseIds = ['k', 'l'];

/** Every request renames another board (in turn), to a name no earlier request gave it. */
const renamed = (i: number) => `Renamed board ${i}`;

export async function smallCases({ keys, org, boards, peerUrl, gatewayUrl }: CaseContext): Promise<Case[]> {
  const board = (i: number) => boards[i % boards.length];
  const nodeIds = peerUrl ? await peerNodeIds(peerUrl, org) : [];
  let versions = new Map<number, number>();
  // Issue 34's targets: every read at the peer's rate, a rename at 90% of it in at most 4 statements.
  const read = { kind: 'GraphQL' as const, constant: false, peerTarget: 1 };
  const rename = { kind: 'mutation' as const, constant: false, peerTarget: 0.9, statementTarget: 4 };
  return [
    {
      ...read,
      id: 'h',
      title: 'one board by rowId, three columns',
      gateway: (i) => graphql(keys, 0, lookupQuery, { rowId: board(i) }),
      floor: (i) => floorGet(`/lookup?id=${board(i)}`),
      peer: (i) => peerGraphql(peerLookupQuery, { rowId: board(i), org }),
      notes: [`${boards.length} boards in turn`],
    },
    {
      ...read,
      id: 't',
      title: 'case h with a bearer token instead of a key',
      gateway: (i) => graphql(keys, 'token', lookupQuery, { rowId: board(i) }),
      floor: (i) => floorGet(`/lookup?id=${board(i)}`),
      peer: (i) => peerGraphql(peerLookupQuery, { rowId: board(i), org }),
      notes: ["the token of key 0's owner (ES256, 5 claims and a scope); its principal is cached as a key's is"],
    },
    {
      ...read,
      id: 'i',
      title: 'one board by node(id:), three columns',
      gateway: (i) => graphql(keys, 0, nodeQuery, { id: Buffer.from(`Whiteboard:${board(i)}`).toString('base64') }),
      floor: (i) => floorGet(`/node?id=${board(i)}`),
      peer: peerUrl ? (i) => peerGraphql(peerNodeQuery, { id: nodeIds[i % nodeIds.length] }) : undefined,
      notes: ["the peer's node(id:) has no tenancy condition: it reads the row by its key alone"],
    },
    {
      ...read,
      kind: 'REST',
      id: 'j',
      title: 'REST board by id',
      gateway: (i) => rest(keys, 'GET', `/api/whiteboard/v1/${board(i)}/`),
      floor: (i) => floorGet(`/whiteboard?id=${board(i)}`),
      peer: (i) => peerGraphql(peerWhiteboardQuery, { rowId: board(i), org }),
      notes: [],
    },
    {
      ...rename,
      id: 'k',
      title: 'rename: updateWhiteboard',
      gateway: (i) => graphql(keys, 0, renameQuery, { input: { rowId: board(i), name: renamed(i) } }),
      peer: (i) => peerGraphql(peerRenameQuery, { rowId: board(i), name: renamed(i) }),
      notes: [
        "the peer's updateWhiteboardByRowId checks nothing, logs no action and sends no live event; the audited peer's trigger logs and notifies",
      ],
    },
    {
      ...rename,
      id: 'v',
      title: 'case k with expectedVersion (issue 41)',
      prepare: async () => {
        versions = await boardVersions(gatewayUrl, keys, org);
      },
      gateway: (i) => {
        const rowId = board(i);
        const expectedVersion = versions.get(rowId)!;
        // Sent in order: a board's next rename, once this one has been answered, finds the version after it.
        versions.set(rowId, expectedVersion + 1);
        return graphql(keys, 0, renameQuery, { input: { rowId, name: renamed(i), expectedVersion } });
      },
      peer: (i) => peerGraphql(peerRenameQuery, { rowId: board(i), name: renamed(i) }),
      notes: [
        `each request expects the board's version: with ${boards.length} boards in turn and fewer connections, no two requests in flight rename one board, so each matches (a CONFLICT would fail the sampled answers)`,
      ],
    },
    {
      ...rename,
      id: 'l',
      title: 'rename: REST PUT',
      gateway: (i) => rest(keys, 'PUT', `/api/whiteboard/v1/${board(i)}/`, { name: renamed(i) }),
      peer: (i) => peerGraphql(peerRestRenameQuery, { rowId: board(i), name: renamed(i) }),
      // The gateway stamps updated_at on every write; the peer's table has no trigger that does.
      ignore: /updated_?at$/i,
      notes: ['the answer check leaves out updated_at, which only the gateway sets'],
    },
  ];
}
