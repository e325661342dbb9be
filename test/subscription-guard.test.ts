import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { currentScope } from '../src/db/row-security.js';
import { demo } from '../src/db/seed/index.js';
import { MAX_UNREAD_ITEMS } from '../src/live/queue.js';
import { createApp, type Gateway } from '../src/http/app.js';
import { createGatewayServer } from '../src/http/server.js';
import { serveGraphQLOverWebSocket } from '../src/http/websocket.js';
import { schema } from '../src/schema/index.js';
import { firstBoard, type DemoBoard } from './helpers/demo-ids.js';
import { boardUpdatesSql, subscribeSse, until } from './helpers/live.js';
import { scratchDirectory } from './helpers/scratch.js';
import { ofTheRequest, startInstance, startTestServer, type TestServer } from './helpers/server.js';
import { postGraphQL, sendGraphQL } from './helpers/graphql.js';
import { RawSocket } from './helpers/websocket.js';

// Every operation passes one guard, whatever its kind and door: a subscription over Server-Sent
// Events or WebSocket is refused exactly as the same selection asked as a query, before it opens
// (no SQL, no stream), and the checks that depend on the row hold at every event.

let server: TestServer;
let board: DemoBoard;

beforeAll(async () => {
  server = await startTestServer({ LIVE_POLL_MS: '60000' });
  board = await firstBoard(server);
});
afterEach(() => until(() => server.gateway.live.size === 0));
afterAll(() => server?.close());

type Extensions = Record<string, unknown> | undefined;

/** The first error of a subscription over Server-Sent Events, as its first event carries it. */
async function overSse(url: string, key: string, query: string, variables?: Record<string, unknown>) {
  const events = await subscribeSse(url, key, query, variables);
  const first = await events.next(5_000);
  events.close();
  return first.errors?.[0]?.extensions as Extensions;
}

/** The first error of a subscription over WebSocket: a refused operation's result, or an `error` message (graphql-ws's for a document that does not validate). */
async function overWebSocket(url: string, key: string, query: string, variables?: Record<string, unknown>) {
  const socket = await RawSocket.signedIn(url, key);
  const first = await socket.first('1', query, variables, 5_000);
  // A refused operation's result is followed by its completion (an error message is the last of its own): the server holds nothing for it.
  if (first?.type === 'next')
    expect(await socket.next((message) => message.id === '1' && message.type === 'complete')).toBeDefined();
  socket.close();
  const errors = first?.type === 'error' ? first.payload : first?.payload.errors;
  return errors?.[0]?.extensions as Extensions;
}

/** The variables an operation declares: `given`, and each page-size variable its text uses. */
const declarations = (text: string, ...given: string[]) => {
  const used = [...new Set(text.match(/\$(boards|streams|slides)\b/g))].map((name) => `${name}: Int`);
  return given.length + used.length ? `(${[...given, ...used].join(', ')})` : '';
};

/** The selection under `me.activeOrganization` as a query, and under an event's node as a subscription: the same depth above it. */
const asQuery = (selection: string, fragments = '') =>
  `query ${declarations(selection + fragments)} { me { activeOrganization { ${selection} } } } ${fragments}`;
const asSubscription = (selection: string, fragments = '') =>
  `subscription ${declarations(selection + fragments, '$id: Int!')} { whiteboardEvents(whiteboardId: $id) { ... on NodeChangedEvent { node { ... on Organization { ${selection} } } } } } ${fragments}`;

const streamsAndSlides = (boards: string, streams: string, slides: string) =>
  `whiteboards${boards} { edges { node { dataStreams${streams} { edges { node { slides${slides} { edges { node { name } } } } } } } } }`;
const thirtyOneAliases = Array.from({ length: 31 }, (_, i) => `a${i}: rowId`).join(' ');

/** The refused shapes of the limits suite (test/limits.test.ts), on Organization, and the documents its parser bounds refuse. */
const refusedShapes: { name: string; selection: string; fragments?: string; variables?: Record<string, unknown> }[] = [
  {
    name: 'rows, page sizes as variables',
    selection: '...Boards',
    fragments: `fragment Boards on Organization { ${streamsAndSlides('(first: $boards)', '(first: $streams)', '(last: $slides)')} }`,
    variables: { boards: 100, streams: 100, slides: 10 },
  },
  {
    name: "rows, through a connection's nodes",
    selection:
      'whiteboards(first: 100) { nodes { dataStreams(first: 100) { nodes { slides(last: 10) { nodes { rowId } } } } } }',
  },
  {
    name: 'depth',
    selection:
      'whiteboards { edges { node { author { memberships(first: 2) { edges { node { organization { whiteboards(first: 2) { edges { node { dataStreams { edges { node { name } } } } } } } } } } } } } }',
  },
  { name: 'aliases', selection: `${thirtyOneAliases} ${thirtyOneAliases.replace(/a(\d+):/g, 'b$1:')}` },
  {
    name: 'aliases, a fragment counted at each spread',
    selection: '...ThirtyOne ... on Organization { ...ThirtyOne }',
    fragments: `fragment ThirtyOne on Organization { ${thirtyOneAliases} }`,
  },
  { name: 'tokens, before the document is parsed', selection: 'rowId '.repeat(10_001) },
  { name: 'nesting, before the document is parsed', selection: `${'a { '.repeat(100)}b${' }'.repeat(100)}` },
];

describe('a subscription under the operation limits', () => {
  it.each(refusedShapes)(
    'is refused as the query is, on both transports, before it opens: $name',
    async ({ selection, fragments, variables }) => {
      const query = await server.graphql(asQuery(selection, fragments), variables, server.keys.viewer);
      expect(query.status).toBe(400);
      const refusal = query.errors![0].extensions!;
      expect(refusal.code).toBe('OPERATION_TOO_COMPLEX');
      const expected = {
        ...refusal,
        ...(typeof refusal.path === 'string' && {
          path: refusal.path.replace(/^me\.activeOrganization/, 'whiteboardEvents.node'),
        }),
      };
      const subscription = asSubscription(selection, fragments);
      const values = { ...variables, id: board.rowId };
      await server.graphql('{ me { rowId } }', {}, server.keys.viewer);
      const { result, statements } = await server.countStatements(async () => [
        await overSse(server.url, server.keys.viewer, subscription, values),
        await overWebSocket(server.url, server.keys.viewer, subscription, values),
      ]);
      expect(result).toEqual([expected, expected]);
      expect(ofTheRequest(statements)).toEqual([]);
      expect(server.gateway.live.size).toBe(0);
    },
  );

  it('counts the default page size of a subscription as of a query', async () => {
    const small = await startInstance({ MAX_NODES: '8419' });
    try {
      const selection = streamsAndSlides('', '', '');
      const query = await postGraphQL(small.url, asQuery(selection), { key: server.keys.viewer });
      expect(query.errors![0].extensions).toMatchObject({ measure: 'rows', found: 8_420, limit: 8_419 });
      const expected = { ...query.errors![0].extensions, path: expect.stringMatching(/^whiteboardEvents\.node\./) };
      const subscription = asSubscription(selection);
      expect(await overSse(small.url, server.keys.viewer, subscription, { id: board.rowId })).toEqual(expected);
      expect(await overWebSocket(small.url, server.keys.viewer, subscription, { id: board.rowId })).toEqual(expected);
    } finally {
      await small.close();
    }
  });

  it('is refused as a query is when it asks the schema: graphql-js allows no introspection at its root', async () => {
    const subscription = 'subscription { __schema { types { name } } }';
    for (const refusal of [
      await overSse(server.url, server.keys.viewer, subscription),
      await overWebSocket(server.url, server.keys.viewer, subscription),
    ])
      expect(refusal).toMatchObject({ code: 'GRAPHQL_VALIDATION_FAILED' });
  });

  it('opens when its selection is within the limits, and delivers', async () => {
    const selection = streamsAndSlides('(first: 2)', '(first: 2)', '(first: 2)');
    const events = await subscribeSse(server.url, server.keys.viewer, asSubscription(selection), { id: board.rowId });
    await until(() => server.gateway.live.size === 1);
    events.close();
  });
});

describe('a subscription under the argument checks', () => {
  it('is refused BAD_USER_INPUT for a value PostgreSQL would refuse, on both transports, before it opens', async () => {
    const subscription = asSubscription('whiteboards(after: "cursor\\u0000") { edges { node { rowId } } }');
    const expected = { code: 'BAD_USER_INPUT', field: 'after' };
    expect(await overSse(server.url, server.keys.viewer, subscription, { id: board.rowId })).toMatchObject(expected);
    expect(await overWebSocket(server.url, server.keys.viewer, subscription, { id: board.rowId })).toMatchObject(
      expected,
    );
  });
});

describe('a subscription without a key', () => {
  it('is refused UNAUTHENTICATED over Server-Sent Events, and never opens', async () => {
    const response = await sendGraphQL(server.url, asSubscription('rowId'), {
      variables: { id: board.rowId },
      headers: { accept: 'text/event-stream' },
    });
    const text = await response.text();
    expect(text).toContain('"code":"UNAUTHENTICATED"');
    expect(server.gateway.live.size).toBe(0);
  });
});

describe('a subscription under the rate limit', () => {
  it('is charged when it opens, and refused RATE_LIMITED on both transports once the bucket is empty', async () => {
    const limited = await startInstance({ RATE_LIMIT: '0.1', RATE_LIMIT_BURST: '3' });
    try {
      const key = server.keys.member;
      const subscription = asSubscription('rowId');
      // Three points: one query, then a subscription on each transport, each of which opens.
      expect((await postGraphQL(limited.url, '{ me { rowId } }', { key })).status).toBe(200);
      const sse = await subscribeSse(limited.url, key, subscription, { id: board.rowId });
      const socket = await RawSocket.signedIn(limited.url, key);
      socket.send({ type: 'subscribe', id: 'open', payload: { query: subscription, variables: { id: board.rowId } } });
      await until(() => limited.gateway.live.size === 2);
      for (const refusal of [
        await overSse(limited.url, key, subscription, { id: board.rowId }),
        await overWebSocket(limited.url, key, subscription, { id: board.rowId }),
      ])
        expect(refusal).toMatchObject({ code: 'RATE_LIMITED', cost: 1 });
      expect(limited.gateway.live.size).toBe(2);
      sse.close();
      socket.close();
      await until(() => limited.gateway.live.size === 0);
    } finally {
      await limited.close();
    }
  });
});

describe('a subscription under trusted documents', () => {
  it('runs only a listed document, by its hash, on both transports', async () => {
    const listed = asSubscription('rowId');
    const hash = createHash('sha256').update(listed).digest('hex');
    const manifest = join(scratchDirectory('subscription-trusted-'), 'manifest.json');
    writeFileSync(manifest, JSON.stringify({ [hash]: listed }));
    const trusted = await startInstance({ TRUSTED_DOCUMENTS: manifest });
    try {
      const overSse = {
        key: server.keys.viewer,
        headers: { accept: 'text/event-stream' },
        variables: { id: board.rowId },
      };
      const response = await sendGraphQL(trusted.url, listed, overSse);
      expect(await response.text()).toContain('PERSISTED_QUERY_ID_REQUIRED');
      expect(await overWebSocket(trusted.url, server.keys.viewer, listed, { id: board.rowId })).toMatchObject({
        code: 'PERSISTED_QUERY_ID_REQUIRED',
      });
      const byHash = await sendGraphQL(trusted.url, undefined, {
        ...overSse,
        extensions: { persistedQuery: { version: 1, sha256Hash: hash } },
      });
      expect(byHash.headers.get('content-type')).toMatch(/^text\/event-stream/);
      await until(() => trusted.gateway.live.size === 1);
      await byHash.body!.cancel();
      await until(() => trusted.gateway.live.size === 0);
    } finally {
      await trusted.close();
    }
  });
});

describe('a subscription under row-level security', () => {
  let gateway: Gateway;
  let http: Server;
  let closeWebSockets: () => Promise<void>;
  let url: string;

  beforeAll(async () => {
    // On the embedded database too: the scope each statement runs under is what this checks (on
    // PostgreSQL, test/row-level-security.test.ts checks what the policies then let through).
    gateway = createApp({ schema, config: { ...loadConfig({ LIVE_POLL_MS: '60000' }), rowLevelSecurity: true } });
    http = createGatewayServer(gateway.listener);
    closeWebSockets = serveGraphQLOverWebSocket(http, gateway);
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await closeWebSockets?.();
    http?.closeAllConnections();
    await new Promise((resolve) => http?.close(resolve));
    await gateway?.close();
  });

  it("reads each event's node in the caller's scope as it is at that event, on both transports", async () => {
    const prisma = server.database.prisma;
    const viewer = await prisma.user.findUniqueOrThrow({ where: { email: demo.users.viewer.email } });
    const globex = await prisma.organization.findFirstOrThrow({ where: { name: demo.organizations.globex.name } });
    const scopes: string[] = [];
    const heard = (sql: string) => {
      const scope = currentScope();
      if (scope && /"whiteboard"/.test(sql)) scopes.push(scope.organizations);
    };
    const subscription = `subscription ($id: Int!) { whiteboardEvents(whiteboardId: $id) { ... on NodeChangedEvent { node { ... on Whiteboard { name } } } } }`;
    const sse = await subscribeSse(url, server.keys.viewer, subscription, { id: board.rowId });
    const socket = await RawSocket.signedIn(url, server.keys.viewer);
    socket.send({ type: 'subscribe', id: 'w', payload: { query: subscription, variables: { id: board.rowId } } });
    await until(() => gateway.live.size === 2);
    const rename = async (name: string) => {
      await postGraphQL(
        url,
        'mutation($id: Int!, $name: String!) { updateWhiteboard(input: { rowId: $id, name: $name }) { whiteboard { name } } }',
        { variables: { id: board.rowId, name }, key: server.keys.owner },
      );
      expect((await sse.next(3_000)).data.whiteboardEvents.node.name).toBe(name);
      expect((await socket.next((message) => message.id === 'w', 3_000))?.payload.data.whiteboardEvents.node.name).toBe(
        name,
      );
    };
    server.database.onQuery.add(heard);
    try {
      await rename('Scoped once');
      const before = [...scopes];
      expect(before.length).toBeGreaterThanOrEqual(2);
      expect(new Set(before)).toEqual(new Set([`{${board.organizationId}}`]));
      // The viewer joins Globex: the next event reads in both organizations' scope.
      const joined = await prisma.userOrganization.create({
        data: { userId: viewer.id, organizationId: globex.id, role: 'VIEWER' },
      });
      try {
        scopes.length = 0;
        await new Promise((resolve) => setTimeout(resolve, 300));
        scopes.length = 0;
        await rename('Scoped twice');
        const both = [board.organizationId, globex.id].sort((a, b) => a - b);
        expect(scopes.length).toBeGreaterThanOrEqual(2);
        for (const scope of scopes)
          expect(
            scope
              .replace(/[{}]/g, '')
              .split(',')
              .map(Number)
              .sort((a, b) => a - b),
          ).toEqual(both);
      } finally {
        await prisma.userOrganization.delete({ where: { id: joined.id } });
      }
    } finally {
      server.database.onQuery.delete(heard);
      sse.close();
      socket.close();
      await until(() => gateway.live.size === 0);
    }
  });
});

describe('a subscriber that does not read', () => {
  it(`is told SUBSCRIBER_TOO_SLOW and its stream ends once ${MAX_UNREAD_ITEMS} events wait unread, on both transports`, async () => {
    const subscription = `subscription ($id: Int!) { whiteboardEvents(whiteboardId: $id) { ... on NodeChangedEvent { node { ... on Whiteboard { name } } } } }`;
    const sse = await sendGraphQL(server.url, subscription, {
      key: server.keys.viewer,
      headers: { accept: 'text/event-stream' },
      variables: { id: board.rowId },
    });
    const socket = await RawSocket.signedIn(server.url, server.keys.viewer);
    const connection = (socket.socket as unknown as { _socket: { pause(): void; resume(): void } })._socket;
    connection.pause();
    socket.send({ type: 'subscribe', id: 's', payload: { query: subscription, variables: { id: board.rowId } } });
    await until(() => server.gateway.live.size === 2);
    // Committed changes of the board, many more than a client reading nothing may leave waiting.
    await server.database.prisma.$executeRawUnsafe(
      boardUpdatesSql,
      board.organizationId,
      board.rowId,
      MAX_UNREAD_ITEMS * 3,
    );
    server.gateway.live.wake();
    await until(() => server.gateway.live.size === 0, 20_000);
    connection.resume();
    const text = await sse.text();
    expect(text).toContain('SUBSCRIBER_TOO_SLOW');
    expect((text.match(/event: next/g) ?? []).length).toBeLessThanOrEqual(MAX_UNREAD_ITEMS + 1);
    const last = await socket.next((message) => message.id === 's' && message.payload?.errors !== undefined, 20_000);
    expect(last?.payload.errors[0].extensions.code).toBe('SUBSCRIBER_TOO_SLOW');
    socket.close();
  }, 60_000);
});

describe('a subscription over HTTP that no Accept of its client allows to answer', () => {
  it('is answered 406 and holds nothing afterwards', async () => {
    const subscription =
      'subscription($id: Int!) { whiteboardEvents(whiteboardId: $id) { ... on LiveEvent { kind } } }';
    for (let attempt = 0; attempt < 3; attempt++) {
      const response = await sendGraphQL(server.url, subscription, {
        key: server.keys.viewer,
        headers: { accept: 'text/html' },
        variables: { id: board.rowId },
      });
      expect(response.status).toBe(406);
      await response.arrayBuffer();
    }
    await until(() => server.gateway.live.size === 0);
    // The key's places are all free: it opens a subscription as before.
    const events = await subscribeSse(server.url, server.keys.viewer, subscription, { id: board.rowId });
    await until(() => server.gateway.live.size === 1);
    events.close();
  });
});
