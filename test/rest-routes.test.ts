import { Ajv } from 'ajv';
import { getNamedType, getNullableType, isEnumType, isListType } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CompiledRoute } from '../src/rest/compile.js';
import type { Param } from '../src/rest/param.js';
import { compileRoutes } from '../src/rest/index.js';
import { openApiDocument } from '../src/rest/openapi.js';
import { schema } from '../src/schema/index.js';
import { createApiKey } from '../src/auth/api-keys.js';
import { demo } from '../src/db/seed/index.js';
import { rest, type RestResponse } from './helpers/rest.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { webhookEnv } from './helpers/webhooks.js';

// Every route of the table, called once against the seeded database: generated from the table, with
// request values made from each parameter's GraphQL type and the seeded rows' ids. A route answers
// its success status with a body of the schema the OpenAPI document gives it, or 501 while flagged.

const routes = compileRoutes(schema);
const openapi = openApiDocument(routes) as { paths: Record<string, Record<string, any>>; components: object };
const ajv = new Ajv({
  strict: false,
  allErrors: true,
  formats: { 'date-time': /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/, int32: true, binary: true },
});

let server: TestServer;
/** Ids of seeded rows of the owner's organization, by the legacy name of the parameter that takes them. */
let ids: Record<string, number>;
let serial = 0;

const first = (connection: { edges: { node: { rowId: number } }[] }) => connection.edges[0].node.rowId;
const rows = (select = 'rowId') => `(first: 1) { edges { node { ${select} } } }`;

async function seededIds(): Promise<Record<string, number>> {
  const { data: board } = await server.graphql(
    `{ me { organizationId } whiteboards(first: 1, filter: { inTheArchive: { eq: false } }) { edges { node { rowId } } } }`,
  );
  const { data, errors } = await server.graphql(
    `query Ids($w: Int!) {
      streams: dataStreams(first: 1, filter: { whiteboardId: { eq: $w } }) { edges { node { rowId slides ${rows()} connections ${rows()} } } }
      objects: whiteboardObjects(first: 2, filter: { whiteboardId: { eq: $w } }) { edges { node { rowId instances ${rows()} } } }
      links: whiteboardObjectConnections(first: 1, filter: { whiteboardId: { eq: $w } }) { edges { node { rowId } } }
      highlights: whiteboardHighlights(first: 1, filter: { whiteboardId: { eq: $w } }) { edges { node { rowId } } }
      groups: whiteboardHighlightGroups(first: 1, filter: { whiteboardId: { eq: $w } }) { edges { node { rowId } } }
      archived: whiteboards(first: 1, filter: { inTheArchive: { eq: true } }) { edges { node { rowId } } }
      repository: objectRepositoryEntries ${rows()}
      libraries ${rows()}
      textures ${rows()}
      texts: classConfAttributes(first: 1, filter: { type: { eq: STRING } }) { edges { node { rowId classConfId values ${rows()} } } }
      logs: actionLogs ${rows()}
      viewer: memberships(first: 1, filter: { role: { eq: VIEWER } }) { edges { node { rowId } } }
      member: memberships(first: 1, filter: { role: { eq: MEMBER } }) { edges { node { rowId } } }
      invite: userInvites(first: 1, filter: { email: { eq: "nina.newcomer@acme.example" } }) { edges { node { rowId } } }
    }`,
    { w: first(board!.whiteboards) },
  );
  expect(errors).toBeUndefined();
  const endpoint = await server.graphql(
    `mutation { createWebhookEndpoint(input: { url: "https://hooks.example.com/seeded", eventTypes: ["*"] }) { webhookEndpoint { rowId } } }`,
  );
  const endpointId = endpoint.data!.createWebhookEndpoint.webhookEndpoint.rowId;
  // A dead letter, to list and redeliver.
  await server.database.prisma.webhookDelivery.create({
    data: { endpointId, messageId: 'msg_seeded', eventType: 'whiteboard.updated', lane: 0, body: '{}', state: 'DEAD' },
  });
  const stream = data!.streams.edges[0].node;
  const [source, target] = data!.objects.edges.map((edge: { node: { rowId: number } }) => edge.node);
  const text = data!.texts.edges[0].node;
  return {
    organization_id: board!.me.organizationId,
    whiteboard_id: first(board!.whiteboards),
    archived_whiteboard_id: first(data!.archived),
    data_stream_id: stream.rowId,
    data_stream_slide_id: first(stream.slides),
    data_stream_connection_id: first(stream.connections),
    object_id: source.rowId,
    source_object_id: source.rowId,
    target_object_id: target.rowId,
    object_instance_id: first(source.instances),
    object_connection_id: first(data!.links),
    highlight_id: first(data!.highlights),
    highlight_group_id: first(data!.groups),
    object_repository_id: first(data!.repository),
    library_id: first(data!.libraries),
    class_texture_id: first(data!.textures),
    library_class_id: text.classConfId,
    class_conf_id: text.classConfId,
    class_conf_attribute_id: text.rowId,
    attribute_id: text.rowId,
    object_attribute_id: first(text.values),
    action_log_id: first(data!.logs),
    user_organization_id: first(data!.viewer),
    member_user_organization_id: first(data!.member),
    invite_id: first(data!.invite),
    endpoint_id: endpointId,
  };
}

/** A value for a parameter: a seeded id for an id, else a fresh value of its GraphQL type. */
function sample(param: Param): unknown {
  if (param.name in ids) return ids[param.name];
  const type = getNullableType(param.type!);
  const named = getNamedType(type);
  const value = isEnumType(named)
    ? named.getValues()[0].name
    : (({ Int: 1, Float: 1.5, Boolean: true } as Record<string, unknown>)[named.name] ??
      (param.name.endsWith('email') ? `rest-${++serial}@acme.example` : `rest_${param.name}_${++serial}`));
  return isListType(type) ? [value] : value;
}

interface Call {
  path: Record<string, unknown>;
  query: Record<string, unknown>;
  /** JSON, or the fields of a multipart form. */
  body?: Record<string, unknown>;
}

const childrenIds = async (connection: string, args: string) =>
  (
    await server.graphql(
      `{ ${connection}(first: 100, ${args}, orderBy: [{ field: order }]) { edges { node { rowId } } } }`,
    )
  )
    .data![connection].edges.map((edge: { node: { rowId: number } }) => edge.node.rowId)
    .reverse();

const exported = async () =>
  (await server.graphql(`{ exportWhiteboard(rowId: ${ids.whiteboard_id}) }`)).data!.exportWhiteboard;

// A 1×1 PNG: the upload checks that the content is what its type says.
const png = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);

/** Where the generated values do not make a valid request: the rows and values the operation needs. */
const scenarios: Record<string, (call: Call) => Promise<void> | void> = {
  'whiteboard/Archive': (call) => void (call.path.whiteboard_id = ids.archived_whiteboard_id),
  'whiteboard-archive/Get Whiteboard Archive': (call) => void (call.path.whiteboard_id = ids.archived_whiteboard_id),
  'whiteboard-archive/Unarchive': (call) => void (call.path.whiteboard_id = ids.archived_whiteboard_id),
  'whiteboard-highlight/Create Whiteboard Highlight': (call) => void (call.body!.value = 'acme'),
  'user-organization/Update User Role': (call) => void (call.body!.role = 'MEMBER'),
  'user-organization-control/Update User Role': (call) => void (call.body!.role = 'VIEWER'),
  'user-organization-control/Delete User Organization': (call) =>
    void (call.path.user_organization_id = ids.member_user_organization_id),
  'whiteboard-object/Search Whiteboard Object': (call) => void (call.query.search = 'web'),
  'whiteboard-object-attribute/Get Whiteboard Object Attribute Code Choices': (call) =>
    void (call.query.class_conf_id = ids.class_conf_id),
  'whiteboard-data-stream-slide/Update Whiteboard Data Stream Slide Order': async (call) => {
    call.body!.ids = await childrenIds('slides', `filter: { dataStreamId: { eq: ${ids.data_stream_id} } }`);
  },
  'whiteboard-data-stream-connection/Update Whiteboard Data Stream Connection Order': async (call) => {
    call.body!.ids = await childrenIds(
      'dataStreamConnections',
      `filter: { dataStreamId: { eq: ${ids.data_stream_id} } }`,
    );
  },
  'library-control-class-conf-attribute/Update Library Class Conf Attribute Order': async (call) => {
    call.body!.ids = await childrenIds('classConfAttributes', `filter: { classConfId: { eq: ${ids.class_conf_id} } }`);
  },
  'whiteboard/Import Whiteboard From File': async (call) => {
    call.body!.file = new File([JSON.stringify(await exported())], 'board.json', { type: 'application/json' });
  },
  'whiteboard-object/Import Whiteboard Objects From File': async (call) => {
    call.body!.file = new File([JSON.stringify(await exported())], 'board.json', { type: 'application/json' });
  },
  'webhook/Create Webhook Endpoint': (call) =>
    void Object.assign(call.body!, { url: 'https://hooks.example.com/rest', event_types: ['*'] }),
  'upload/Create Upload File': (call) => void (call.body!.file = new File([png], 'dot.png', { type: 'image/png' })),
  'user-invite/Register User Invite': async (call) => {
    const email = `newcomer.${++newcomers}@example.com`;
    call.body!.token = (
      await server.graphql(`mutation { createUserInvite(input: { email: "${email}", role: MEMBER }) { token } }`)
    ).data!.createUserInvite.token;
  },
};
let newcomers = 0;

/** A request for the route: seeded ids in the path, required parameters and body fields filled in. */
async function callFor(route: CompiledRoute): Promise<Call> {
  const call: Call = { path: {}, query: {}, body: route.body ? {} : undefined };
  for (const param of route.params) {
    if (param.in === 'path') call.path[param.name] = ids[param.name];
    else if (param.required) (param.in === 'query' ? call.query : call.body!)[param.name] = sample(param);
  }
  if (route.kind === 'filter') Object.assign(call.query, { limit: 5, offset: 0, ordering: '-id' });
  if (route.kind === 'list') call.query.limit = 5;
  await scenarios[`${route.group}/${route.name}`]?.(call);
  return call;
}

async function send(route: CompiledRoute, call: Call): Promise<RestResponse> {
  const path = route.path.replace(/\{(\w+)\}/g, (_, name: string) => String(call.path[name]));
  const query = new URLSearchParams(
    Object.entries(call.query).map(([name, value]) => [name, String(value)]),
  ).toString();
  const form = new FormData();
  for (const [name, value] of Object.entries(call.body ?? {}))
    form.set(name, value instanceof File ? value : String(value));
  return rest(
    server,
    route.method,
    query ? `${path}?${query}` : path,
    route.multipart ? { body: form } : { json: call.body },
  );
}

/** A delete acts on a row made for it by the create route of the same entity, so the seeded rows stay for the others. */
async function rowToDelete(route: CompiledRoute, call: Call): Promise<void> {
  const mutation = route.root.name.value;
  const create =
    mutation.startsWith('delete') &&
    routes.find((candidate) => candidate.root.name.value === mutation.replace(/^delete/, 'create'));
  if (!create) return;
  const created = await send(create, await callFor(create));
  expect(created.status, `creating a row for ${route.name}`).toBe(201);
  // The row, or the one object beside a value shown once (an invite beside its token).
  const row =
    'id' in created.body ? created.body : Object.values(created.body).find((value) => typeof value === 'object');
  const placeholder = route.params.find((param) => param.in === 'path' && param.target?.join('.') === 'input.rowId')!;
  call.path[placeholder.name] = row.id;
  // The archive's paths take archived boards only.
  if (route.group === 'whiteboard-archive')
    expect(
      (await server.graphql(`mutation { archiveWhiteboard(input: { rowId: ${row.id} }) { whiteboard { rowId } } }`))
        .errors,
    ).toBeUndefined();
  // Deleting an organization takes its name as confirmation.
  if ('confirm_name' in call.query) call.query.confirm_name = row.name;
}

// Reads first, then creates, changes and deletes, and the delete of every archived board last.
const phase = (route: CompiledRoute) =>
  route.name === 'Delete All Whiteboard'
    ? 4
    : route.method === 'GET' || route.kind === 'info'
      ? 0
      : ({ POST: 1, PUT: 2, DELETE: 3 } as Record<string, number>)[route.method];

let otherOrganizationKey: string;
beforeAll(async () => {
  server = await startTestServer(webhookEnv);
  ids = await seededIds();
  const globexOwner = await server.database.prisma.user.findUniqueOrThrow({
    where: { email: demo.users.globexOwner.email },
  });
  otherOrganizationKey = (
    await createApiKey(server.database.prisma, { userId: globexOwner.id, name: 'isolation', permission: 'ADMIN' })
  ).secret;
});
afterAll(() => server?.close());

/** Ids in a list answer (rows, or their `id`s); users are shared by organizations on purpose. */
const listedIds = (body: unknown): number[] =>
  Array.isArray(body)
    ? body.map((row: { id?: number }) => row.id).filter((id): id is number => typeof id === 'number')
    : [];

// Runs before the suite below changes anything: a key of Globex against every route, with Acme's rows.
describe('a key of another organization', () => {
  for (const route of routes) {
    it(`${route.method} ${route.path} ${route.name}`, async () => {
      const call = await callFor(route);
      const path = route.path.replace(/\{(\w+)\}/g, (_, name: string) => String(call.path[name]));
      const query = new URLSearchParams(
        Object.entries(call.query).map(([name, value]) => [name, String(value)]),
      ).toString();
      const form = new FormData();
      for (const [name, value] of Object.entries(call.body ?? {}))
        form.set(name, value instanceof File ? value : String(value));
      const logBefore = await server.database.prisma.userActionLog.count();
      const options = { key: otherOrganizationKey, ...(route.multipart ? { body: form } : { json: call.body }) };
      const response = await rest(server, route.method, query ? `${path}?${query}` : path, options);
      const touchesAcmeRow =
        route.params.some((param) => param.in === 'path') ||
        Object.values(call.body ?? {}).some((value) => Object.values(ids).includes(value as number));
      if (touchesAcmeRow) {
        // Another organization's id answers exactly like an id that does not exist.
        expect([404, 422], JSON.stringify(response.body)).toContain(response.status);
        expect(await server.database.prisma.userActionLog.count()).toBe(logBefore);
      } else if ((route.kind === 'list' || route.kind === 'filter') && !route.path.includes('/users/')) {
        const own = await send(route, call);
        expect(listedIds(response.body).filter((id) => listedIds(own.body).includes(id))).toEqual([]);
      } else {
        // Whatever it did, it did in the caller's own organization.
        expect(response.status, JSON.stringify(response.body)).toBeLessThan(500);
        expect((response.body as { organization_id?: number } | undefined)?.organization_id).not.toBe(
          ids.organization_id,
        );
      }
    });
  }
});

describe('every route of the table', () => {
  for (const route of [...routes].sort((a, b) => phase(a) - phase(b))) {
    it(`${route.method} ${route.path} ${route.name}`, async () => {
      const call = await callFor(route);
      if (route.method === 'DELETE') await rowToDelete(route, call);
      const response = await send(route, call);
      const status = route.status ?? (route.kind === 'empty' ? 204 : 200);
      expect(response.status, JSON.stringify(response.body)).toBe(status);
      const answer = openapi.paths[route.path][route.method.toLowerCase()].responses[status];
      if (!answer.content) return expect(response.body).toBeUndefined();
      const validate = ajv.compile({ ...answer.content['application/json'].schema, components: openapi.components });
      expect(validate(response.body), JSON.stringify(validate.errors?.slice(0, 3))).toBe(true);
      if (route.kind === 'list' || route.kind === 'filter') {
        expect(Number(response.headers.get('x-total-count'))).toBeGreaterThanOrEqual(response.body.length);
        expect(response.body.length).toBeGreaterThan(0);
      }
    });
  }
});
