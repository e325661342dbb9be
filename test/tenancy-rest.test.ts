import { getNamedType, isObjectType, type GraphQLObjectType } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ModelName } from '../src/auth/tenancy.js';
import type { CompiledRoute } from '../src/rest/compile.js';
import { compileRoutes } from '../src/rest/index.js';
import { schema } from '../src/schema/index.js';
import { subscribeSse } from './helpers/live.js';
import { rest } from './helpers/rest.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { crossOrganizationReferences, demoCallers, modelOfType, Visibility, type Caller } from './helpers/tenancy.js';
import { addWebhookEndpoints } from './helpers/webhooks.js';

// The legacy routes hold to the tenancy of the graph, for every kind of caller: a GET of a row of an
// organization the caller is not in answers 404 as a row that does not exist does, and no list holds
// such a row, at its top or in the objects nested in its rows.

const routes = compileRoutes(schema).filter((route) => route.method === 'GET');

let server: TestServer;
let callers: Caller[];
let visibility: Visibility;
let ids: Map<ModelName, number[]>;

beforeAll(async () => {
  server = await startTestServer();
  const { prisma } = server.database;
  await crossOrganizationReferences(prisma);
  await addWebhookEndpoints(prisma);
  callers = await demoCallers(prisma, server.keys);
  visibility = await Visibility.of(prisma);
  ids = new Map();
  for (const route of routes) {
    const model = rowModel(route);
    if (model && !ids.has(model)) ids.set(model, await visibility.ids(prisma, model));
  }
  for (const model of ['Whiteboard', 'WhiteboardHighlight'] as const)
    ids.set(model, await visibility.ids(prisma, model));
});
afterAll(() => server?.close());

/** The model of the rows a route answers: its root field's type, or the node type of its connection. */
function rowModel(route: CompiledRoute): ModelName | undefined {
  const type = getNamedType(route.rootField!.type) as GraphQLObjectType;
  const edges = isObjectType(type) ? type.getFields().edges : undefined;
  const node = edges ? getNamedType((getNamedType(edges.type) as GraphQLObjectType).getFields().node.type) : type;
  return modelOfType(schema, node.name);
}

/** The model a path parameter names a row of: a lookup's own rows, else the parent its name says. */
function pathModel(route: CompiledRoute, target: string[]): ModelName | undefined {
  const variable = target[target.length - 1];
  const parents: Record<string, ModelName> = {
    whiteboardId: 'Whiteboard',
    highlightId: 'WhiteboardHighlight',
    endpointId: 'WebhookEndpoint',
  };
  if (parents[variable]) return parents[variable];
  // whiteboardClients(rowId:) lists the users of a board.
  return route.rootField!.name === 'whiteboardClients' ? 'Whiteboard' : rowModel(route);
}

/** Objects nested in the legacy rows, by their key, and the model of each. */
const nested: Record<string, ModelName> = {
  author: 'User',
  user: 'User',
  organization: 'Organization',
  mini_drawing: 'File',
  light_theme_image: 'File',
  dark_theme_image: 'File',
  texture: 'ClassTexture',
  data_stream: 'DataStream',
};

function foreignIn(caller: Caller, model: ModelName, row: Record<string, unknown>, path: string): string[] {
  const found = visibility.mayUserSee(caller, model, row.id as number) ? [] : [`${path}: ${model} ${row.id}`];
  for (const [key, inner] of Object.entries(row)) {
    if (nested[key] && inner && typeof inner === 'object')
      found.push(...foreignIn(caller, nested[key], inner as Record<string, unknown>, `${path}.${key}`));
  }
  return found;
}

describe('legacy routes', () => {
  const lookups = routes.filter((route) => route.params.some((param) => param.in === 'path' && param.target));
  const lists = routes.filter((route) => route.kind === 'list' || route.kind === 'filter');

  it.each(lookups.map((route) => [route.path, route] as const))(
    'GET %s answers 404 for a row of an organization the caller is not in',
    async (_path, route) => {
      const target = route.params.find((param) => param.in === 'path' && param.target)!;
      const model = pathModel(route, target.target!)!;
      for (const caller of callers) {
        const foreign = ids
          .get(model)!
          .filter((id) => !visibility.mayUserSee(caller, model, id))
          .slice(0, 3);
        for (const id of foreign) {
          // A parent's placeholder in a nested path takes the same id: the row is not the caller's either way.
          const path = route.path.replace(/\{\w+\}/g, String(id));
          const response = await rest(server, 'GET', path, { key: caller.key });
          expect(response.status, `${caller.name}: GET ${path}`).toBe(404);
        }
      }
    },
  );

  it.each(
    lists
      .filter((route) => !route.params.some((param) => param.in === 'path'))
      .map((route) => [route.path, route] as const),
  )('GET %s lists no row of an organization the caller is not in', async (_path, route) => {
    const model = rowModel(route)!;
    for (const caller of callers) {
      const query = route.rootField!.name === 'searchWhiteboardObjects' ? '?search=e' : '';
      const response = await rest(server, 'GET', `${route.path}${query}`, { key: caller.key });
      expect(response.status, `${caller.name}: GET ${route.path}`).toBe(200);
      const rows = response.body as Record<string, unknown>[];
      expect(
        rows.flatMap((row, i) => foreignIn(caller, model, row, `[${i}]`)),
        caller.name,
      ).toEqual([]);
    }
  });
});

describe('subscriptions', () => {
  it("load each event's node with the subscriber's own access: no row of another organization beneath it", async () => {
    // crossOrganizationReferences gave an object of Globex's a class of Acme's.
    const object = await server.database.prisma.whiteboardObject.findFirstOrThrow({
      where: {
        whiteboard: { organization: { name: 'Globex Logistics' } },
        classConf: { library: { organization: { name: 'Acme Robotics' } } },
      },
    });
    const events = `subscription($id: Int!) { whiteboardEvents(whiteboardId: $id) {
      ... on NodeChangedEvent { node { ... on WhiteboardObject { name classConf { rowId } } } } } }`;
    const globex = await subscribeSse(server.url, server.keys.globexOwner, events, { id: object.whiteboardId });
    const both = await subscribeSse(server.url, server.keys.member, events, { id: object.whiteboardId });
    const renamed = await server.graphql(
      `mutation($rowId: Int!) { updateWhiteboardObject(input: { rowId: $rowId, name: "Renamed live" }) { whiteboardObject { rowId } } }`,
      { rowId: object.id },
      server.keys.globexOwner,
    );
    expect(renamed.errors).toBeUndefined();
    expect((await globex.next()).data.whiteboardEvents.node).toEqual({ name: 'Renamed live', classConf: null });
    expect((await both.next()).data.whiteboardEvents.node).toEqual({
      name: 'Renamed live',
      classConf: { rowId: object.classConfId },
    });
    globex.close();
    both.close();
  });
});
