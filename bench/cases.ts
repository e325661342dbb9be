import type { Case, CaseContext } from './case.js';
import { rowsOf, size } from './dataset.js';
import type { KeyRing } from './keys.js';
import {
  peerBoardQuery,
  peerClassConfQuery,
  peerEndCursorQuery,
  peerNestedQuery,
  peerSlideListQuery,
  peerWhiteboardListQuery,
} from './peer-queries.js';
import { boardQuery, type NestedForm, nestedQuery } from './queries.js';
import { createCases } from './create-cases.js';
import { moveCase } from './move-case.js';
import { floorGet, graphql, type HttpRequest, peerGraphql, send } from './requests.js';
import { smallCases } from './small-cases.js';

/** Key 0 belongs to organization 1: the single-key cases read organization 1's rows. */
const org = 1;
const boards = rowsOf(org, size.whiteboards);
const classes = rowsOf(org, size.classes);

/** A REST case; skipped while its route answers 404/501 (the REST layer is not there yet). */
async function restCase(
  gatewayUrl: string,
  keys: KeyRing,
  spec: {
    id: string;
    title: string;
    path: (i: number) => string;
    /** The floor's path and the peer's request for request i, given the rows per page the route answered. */
    floor: (i: number, rows: number) => string;
    peer: (i: number, rows: number) => HttpRequest;
    list: boolean;
  },
): Promise<Case> {
  const gateway = (i: number): HttpRequest => ({ method: 'GET', path: spec.path(i), headers: keys.headers(0) });
  const probe = await send(gatewayUrl, gateway(0));
  const result: Case = {
    id: spec.id,
    title: spec.title,
    kind: 'REST',
    peerTarget: 1,
    // Issue 34: the REST lists at 90% of the floor; every read at the peer's rate.
    floorTarget: spec.list ? 0.9 : undefined,
    gateway,
    constant: spec.list,
    notes: [],
  };
  if (probe.status === 404 || probe.status === 501)
    return { ...result, skip: `GET ${spec.path(0)} answers ${probe.status}: the REST route is not there yet` };
  // The bench does not assume the REST page size: the floor returns as many rows as the gateway did.
  let rows = 0;
  if (spec.list) {
    if (!Array.isArray(probe.body)) return { ...result, notes: ['the answer is not a JSON array; no floor'] };
    rows = probe.body.length;
    result.notes.push(`${rows} rows per answer`);
  }
  return { ...result, floor: (i) => floorGet(spec.floor(i, rows)), peer: (i) => spec.peer(i, rows) };
}

interface TypeRef {
  kind: string;
  name: string | null;
  ofType: TypeRef | null;
}
const named = (type: TypeRef): TypeRef => (type.ofType ? named(type.ofType) : type);
const typeRef = 'type { kind name ofType { kind name ofType { kind name ofType { kind name } } } }';

/**
 * f: archive and unarchive in turn, each pair on one connection and board, so no two requests race
 * on a board. The mutations' input and payload are read from the schema (they are being written).
 */
async function mutationCase(gatewayUrl: string, keys: KeyRing): Promise<Case> {
  const base = {
    id: 'f',
    title: 'archive + unarchive in turn',
    kind: 'mutation' as const,
    statementTarget: 4,
    constant: false,
    run: 2,
    notes: [],
  };
  const introspection = await send(
    gatewayUrl,
    graphql(keys, 0, `{ __type(name: "Mutation") { fields { name args { name ${typeRef} } ${typeRef} } } }`, {}),
  );
  type Field = { name: string; args: { name: string; type: TypeRef }[]; type: TypeRef };
  const fields: Field[] =
    (introspection.body as { data?: { __type?: { fields: Field[] } | null } }).data?.__type?.fields ?? [];
  const archive = fields.find((field) => field.name === 'archiveWhiteboard');
  const unarchive = fields.find((field) => field.name === 'unarchiveWhiteboard');
  if (!archive || !unarchive) {
    return {
      ...base,
      gateway: () => graphql(keys, 0, '{ __typename }', {}),
      skip: 'the schema has no archiveWhiteboard/unarchiveWhiteboard mutations yet',
    };
  }
  const inputType = named(archive.args.find((arg) => arg.name === 'input')?.type ?? archive.args[0].type).name;
  const input = await send(
    gatewayUrl,
    graphql(keys, 0, `{ __type(name: "${inputType}") { inputFields { name ${typeRef} } } }`, {}),
  );
  const inputFields = (input.body as { data: { __type: { inputFields: { name: string; type: TypeRef }[] } } }).data
    .__type.inputFields;
  const idField = inputFields.find((field) => ['id', 'rowId', 'whiteboardId'].includes(field.name))!;
  const idValue = (board: number) =>
    named(idField.type).name === 'ID' ? Buffer.from(`Whiteboard:${board}`).toString('base64') : board;
  const payload = await send(
    gatewayUrl,
    graphql(keys, 0, `{ __type(name: "${named(archive.type).name}") { fields { name } } }`, {}),
  );
  const payloadFields =
    (payload.body as { data: { __type: { fields: { name: string }[] } | null } }).data.__type?.fields ?? [];
  const selection = payloadFields.some((field) => field.name === 'whiteboard')
    ? '{ whiteboard { rowId inTheArchive } }'
    : '{ __typename }';
  const argument = archive.args.some((arg) => arg.name === 'input') ? 'input' : archive.args[0].name;
  const document = (name: string) =>
    `mutation Toggle($input: ${inputType}!) { ${name}(${argument}: $input) ${selection} }`;
  return {
    ...base,
    gateway: (i) => {
      const board = boards[Math.floor(i / 2) % boards.length];
      return graphql(keys, 0, document(i % 2 === 0 ? 'archiveWhiteboard' : 'unarchiveWhiteboard'), {
        input: { [idField.name]: idValue(board) },
      });
    },
  };
}

/** The end cursor of the first `first` boards of `org`, from the gateway and from the peer (each writes its own). */
async function endCursors(context: CaseContext, first: number): Promise<{ gateway: string; peer?: string }> {
  const query = `query EndCursor($org: Int!, $first: Int!) {
  whiteboards(first: $first, filter: { organizationId: { eq: $org } }) { pageInfo { endCursor } }
}`;
  type Answer<K extends string> = { data: Record<K, { pageInfo: { endCursor: string } }> };
  const gateway = await send(context.gatewayUrl, graphql(context.keys, 0, query, { org, first }));
  const peer = context.peerUrl
    ? await send(context.peerUrl, peerGraphql(peerEndCursorQuery, { org, first }))
    : undefined;
  return {
    gateway: (gateway.body as Answer<'whiteboards'>).data.whiteboards.pageInfo.endCursor,
    peer: peer && (peer.body as Answer<'allWhiteboards'>).data.allWhiteboards.pageInfo.endCursor,
  };
}

/** a: the nested read as first measured, with pageInfo, and its page 2 by cursor, as a Relay client writes them. */
async function nestedCases(context: CaseContext): Promise<Case[]> {
  const first = 50;
  const cursors = await endCursors(context, first);
  const forms: {
    id: string;
    form: NestedForm;
    title: string;
    after?: { gateway: string; peer?: string; row: number };
  }[] = [
    { id: 'a', form: 'plain', title: 'nested GraphQL, 50 boards x streams x slides' },
    { id: 'a2', form: 'pageInfo', title: 'case a with pageInfo { hasNextPage endCursor }' },
    {
      id: 'a3',
      form: 'after',
      title: 'case a2, page 2 (after: the end cursor of page 1)',
      after: { ...cursors, row: boards[first - 1] },
    },
  ];
  return forms.map(({ id, form, title, after }) => ({
    id,
    title,
    kind: 'GraphQL',
    peerTarget: 1,
    gateway: () => graphql(context.keys, 0, nestedQuery(3, form), { org, first, after: after?.gateway }),
    constant: true,
    floor: () =>
      floorGet(
        form === 'plain'
          ? `/nested?org=${org}&first=${first}`
          : `/nested-paged?org=${org}&first=${first}&after=${after?.row ?? ''}`,
      ),
    peer:
      after && !after.peer ? undefined : () => peerGraphql(peerNestedQuery(form), { org, first, after: after?.peer }),
    notes: [],
  }));
}

/** Every case of issues 11, 20 and 34, with what this gateway can run today. */
export async function buildCases(gatewayUrl: string, keys: KeyRing, peerUrl?: string): Promise<Case[]> {
  const context: CaseContext = { gatewayUrl, peerUrl, keys, org, boards };
  const nested = nestedQuery();
  // Key k belongs to organization k + 1, so each request of g reads its own key's organization.
  const keyCount = Math.min(keys.count, size.organizations);
  return [
    ...(await nestedCases(context)),
    {
      id: 'b',
      title: 'one board with everything on it',
      kind: 'GraphQL',
      peerTarget: 1,
      gateway: (i) => graphql(keys, 0, boardQuery, { rowId: boards[i % boards.length] }),
      constant: false,
      floor: (i) => floorGet(`/board?id=${boards[i % boards.length]}`),
      peer: (i) => peerGraphql(peerBoardQuery, { rowId: boards[i % boards.length], org }),
      notes: [`${boards.length} boards in turn`],
    },
    await restCase(gatewayUrl, keys, {
      id: 'c',
      title: 'REST whiteboard list',
      path: () => '/api/whiteboard/v1/',
      floor: (_i, rows) => `/whiteboards?limit=${rows}&org=${org}`,
      peer: (_i, rows) => peerGraphql(peerWhiteboardListQuery, { org, first: rows }),
      list: true,
    }),
    await restCase(gatewayUrl, keys, {
      id: 'd',
      title: 'REST slide list',
      path: () => '/api/whiteboard/v1/data-stream-slide/',
      floor: (_i, rows) => `/slides?limit=${rows}&org=${org}`,
      peer: (_i, rows) => peerGraphql(peerSlideListQuery, { org, first: rows }),
      list: true,
    }),
    await restCase(gatewayUrl, keys, {
      id: 'e',
      title: 'REST library class by id',
      path: (i) => `/api/library/view/v1/class-conf/${classes[i % classes.length]}/`,
      floor: (i) => `/class-conf?id=${classes[i % classes.length]}`,
      peer: (i) => peerGraphql(peerClassConfQuery, { rowId: classes[i % classes.length], org }),
      list: false,
    }),
    await mutationCase(gatewayUrl, keys),
    {
      id: 'g',
      title: `nested GraphQL, ${keyCount} keys in turn`,
      kind: 'GraphQL',
      peerTarget: 1,
      gateway: (i) => graphql(keys, i % keyCount, nested, { org: (i % keyCount) + 1, first: 50 }),
      constant: false,
      floor: (i) => floorGet(`/nested?org=${(i % keyCount) + 1}&first=50`),
      peer: (i) => peerGraphql(peerNestedQuery(), { org: (i % keyCount) + 1, first: 50 }),
      notes: [],
    },
    ...(await smallCases(context)),
    moveCase(context),
    ...createCases(context),
  ];
}
