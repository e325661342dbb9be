import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getIntrospectionQuery } from 'graphql';
import { auditServer } from 'graphql-http';
import { loadConfig } from '../src/config.js';
import { createApp } from '../src/http/app.js';
import { schema } from '../src/schema/index.js';
import { ofTheRequest, startTestServer, type TestServer } from './helpers/server.js';
import { sendGraphQL, type GraphQLResponse } from './helpers/graphql.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server?.close());

describe('GraphQL over HTTP', () => {
  it('passes every MUST and SHOULD audit of graphql-http for an authenticated client', async () => {
    const results = await auditServer({
      url: `${server.url}/graphql`,
      fetchFn: (input: RequestInfo | URL, init?: RequestInit) =>
        fetch(input, {
          ...init,
          headers: { ...(init?.headers as Record<string, string>), 'x-api-key': server.keys.viewer },
        }),
    });
    const failed = results
      .filter(
        (result) => result.status !== 'ok' && (result.name.startsWith('MUST') || result.name.startsWith('SHOULD')),
      )
      .map((result) => `${result.name}: ${'reason' in result ? result.reason : ''}`);
    expect(failed).toEqual([]);
    expect(results.length).toBeGreaterThan(20);
  });
});

/** Asks a gateway configured with `env`, in process. */
const asked: ReturnType<typeof createApp>[] = [];
afterAll(() => Promise.all(asked.map((app) => app.close())));
const askWith = (env: Record<string, string>) => {
  const app = createApp({ schema, config: loadConfig(env) });
  asked.push(app);
  return async (query: string): Promise<GraphQLResponse> =>
    (
      await app.request('/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': server.keys.viewer },
        body: JSON.stringify({ query }),
      })
    ).json();
};

describe('operation limits', () => {
  const refusal = (response: GraphQLResponse) => response.errors?.[0]?.extensions;
  const notASyntaxError = (response: GraphQLResponse) => expect(response.errors![0].message).not.toMatch(/syntax/i);
  const sixtyOneAliases = Array.from({ length: 61 }, (_, i) => `a${i}: me { rowId }`).join(' ');
  const boardsStreamsSlides = (boards: string, streams: string, slides: string) =>
    `whiteboards(${boards}) { edges { node { name dataStreams(${streams}) { edges { node { name slides(${slides}) { edges { node { name } } } } } } } } }`;

  it('admits and answers a nested read of 50 boards, 20 streams each and 20 slides each (21,050 rows)', async () => {
    const query = `{ whiteboards(first: 50) { edges { node { dataStreams(first: 20) { edges { node { slides(first: 20) { edges { node { rowId } } } } } } } } } }`;
    const response = await server.graphql(query);
    expect(response.errors).toBeUndefined();
    expect(response.data!.whiteboards.edges.length).toBeGreaterThan(0);
  });

  it('refuses, before any SQL, an operation whose page sizes multiply past the row limit, naming the figure, the limit and the largest part', async () => {
    const query = `query Big($boards: Int, $streams: Int, $slides: Int) { ...Boards }
      fragment Boards on Query { ${boardsStreamsSlides('first: $boards', 'first: $streams', 'last: $slides')} }`;
    // The key's principal is cached first, so that the window holds only what the operation itself sends.
    await server.graphql('{ me { rowId } }');
    const { result, statements } = await server.countStatements(() =>
      server.graphql(query, { boards: 100, streams: 100, slides: 10 }),
    );
    expect(result.status).toBe(400);
    expect(result.data).toBeUndefined();
    // 100 + 100 x 100 + 100 x 100 x 10.
    expect(refusal(result)).toEqual({
      code: 'OPERATION_TOO_COMPLEX',
      measure: 'rows',
      found: 110_100,
      limit: 50_000,
      path: 'whiteboards.edges.node.dataStreams.edges.node.slides',
    });
    expect(result.errors![0].message).toMatch(
      /up to 110100 rows; the limit is 50000\..* 100000 of them come from whiteboards\.edges\.node\.dataStreams\.edges\.node\.slides/,
    );
    notASyntaxError(result);
    expect(ofTheRequest(statements)).toEqual([]);

    // The same document, counted again with other values: 100 + 100 x 5 + 100 x 5 x 10 rows at most.
    const smaller = await server.graphql(query, { boards: 100, streams: 5, slides: 10 });
    expect(smaller.errors).toBeUndefined();
    expect(smaller.data).toHaveProperty('whiteboards.edges');
  });

  it("counts a page size given as a variable, and the variable's default when the request leaves it out", async () => {
    const query = `query ($boards: Int!, $streams: Int = 100) { ${boardsStreamsSlides('first: $boards', 'first: $streams', 'first: 10')} }`;
    expect(refusal(await server.graphql(query, { boards: 50 }))).toMatchObject({
      measure: 'rows',
      found: 50 + 5_000 + 50_000,
    });
    expect((await server.graphql(query, { boards: 50, streams: 20 })).errors).toBeUndefined();
  });

  it("counts the rows reached through a connection's nodes as those reached through its edges", async () => {
    const query = `{ whiteboards(first: 100) { nodes { dataStreams(first: 100) { nodes { slides(last: 10) { nodes { rowId } } } } } } }`;
    expect(refusal(await server.graphql(query))).toMatchObject({
      measure: 'rows',
      found: 110_100,
      path: 'whiteboards.nodes.dataStreams.nodes.slides',
    });
    const mixed = `{ whiteboards(first: 100) { nodes { rowId } edges { node { dataStreams(first: 100) { nodes { rowId } } } } } }`;
    expect(refusal(await server.graphql(mixed))).toBeUndefined();
    const answer = await server.graphql('{ whiteboards(first: 3) { nodes { rowId } edges { node { rowId } } } }');
    expect(answer.data!.whiteboards.nodes).toEqual(
      answer.data!.whiteboards.edges.map((edge: { node: unknown }) => edge.node),
    );
    expect(answer.data!.whiteboards.nodes).toHaveLength(3);
  });

  it('counts a connection without first or last at the default page size of 20', async () => {
    const ask = askWith({ MAX_NODES: '8419' });
    // 20 + 400 + 8,000 = 8,420.
    expect(refusal(await ask(`{ ${boardsStreamsSlides('', '', '')} }`.replace(/\(\)/g, '')))).toMatchObject({
      found: 8_420,
      limit: 8_419,
    });
    expect((await ask(`{ ${boardsStreamsSlides('first: 19', '', '')} }`.replace(/\(\)/g, ''))).errors).toBeUndefined();
  });

  it('refuses an operation nested deeper than the limit, naming the depth, the limit and the path', async () => {
    const within = `{ whiteboards { edges { node { author { memberships(first: 2) { edges { node { organization { whiteboards(first: 2) { edges { node { dataStreams { edges { node { name } } } } } } } } } } } } } } }`;
    expect((await server.graphql(within)).errors).toBeUndefined();
    const deeper = within.replace('{ name }', '{ whiteboard { name } }');
    const { result, statements } = await server.countStatements(() => server.graphql(deeper));
    expect(refusal(result)).toEqual({
      code: 'OPERATION_TOO_COMPLEX',
      measure: 'depth',
      found: 16,
      limit: 15,
      path: 'whiteboards.edges.node.author.memberships.edges.node.organization.whiteboards.edges.node.dataStreams.edges.node.whiteboard.name',
    });
    expect(result.errors![0].message).toMatch(
      /^Operation nests 16 fields deep, at whiteboards\.edges\..*whiteboard\.name; the limit is 15/,
    );
    notASyntaxError(result);
    expect(ofTheRequest(statements)).toEqual([]);
  });

  it('refuses an operation with too many aliases, counting a fragment at each spread', async () => {
    const response = await server.graphql(`{ ${sixtyOneAliases} }`);
    expect(refusal(response)).toEqual({ code: 'OPERATION_TOO_COMPLEX', measure: 'aliases', found: 61, limit: 60 });
    expect(response.errors![0].message).toBe('Operation uses 61 aliases; the limit is 60.');
    notASyntaxError(response);

    const thirtyOne = sixtyOneAliases.split(' a31:')[0];
    const spreadTwice = `{ ...ThirtyOne ... on Query { ...ThirtyOne } typename: __typename } fragment ThirtyOne on Query { ${thirtyOne} }`;
    // 31 twice, and the alias of __typename: none is free.
    expect(refusal(await server.graphql(spreadTwice))).toMatchObject({ measure: 'aliases', found: 63 });
  });

  it('answers one full introspection and counts its objects as rows', async () => {
    const response = await server.graphql(
      getIntrospectionQuery({
        inputValueDeprecation: true,
        specifiedByUrl: true,
        directiveIsRepeatable: true,
        oneOf: true,
      }),
    );
    expect(response.errors).toBeUndefined();
    expect(response.data!.__schema.types.length).toBeGreaterThan(100);

    // Types, fields, arguments and every type reference: several thousand objects.
    expect(refusal(await askWith({ MAX_NODES: '1000' })(getIntrospectionQuery()))).toMatchObject({
      measure: 'rows',
      limit: 1000,
      path: '__schema',
    });
  });

  it('refuses a second __schema or __type in one operation', async () => {
    const fifty = Array.from({ length: 50 }, (_, i) => `s${i}: __schema { types { name } }`).join(' ');
    const response = await server.graphql(`{ ${fifty} }`);
    expect(response.status).toBe(400);
    expect(refusal(response)).toEqual({
      code: 'OPERATION_TOO_COMPLEX',
      measure: '__schema',
      found: 50,
      limit: 1,
      path: 's1',
    });
    expect(response.errors![0].message).toMatch(
      /^Operation selects __schema 50 times \(s0, s1, .*\); the limit is 1 per operation\.$/,
    );

    const types = await server.graphql(`{ a: __type(name: "Query") { name } b: __type(name: "Mutation") { name } }`);
    expect(refusal(types)).toMatchObject({ measure: '__type', found: 2, path: 'b' });
  });

  it('refuses one __schema whose answer repeats the schema under aliases', async () => {
    // graphql-js refuses lists of types nested three deep; aliases side by side are left to the count (about 3,000 objects each).
    const lists = Array.from(
      { length: 20 },
      (_, i) => `t${i}: types { name fields { name type { name } args { name type { name } } } }`,
    ).join(' ');
    const response = await server.graphql(`{ __schema { ${lists} } }`);
    expect(refusal(response)).toEqual({
      code: 'OPERATION_TOO_COMPLEX',
      measure: 'rows',
      limit: 50_000,
      path: '__schema',
    });
    expect(response.errors![0].message).toMatch(
      /^Operation could return more than 50000 rows; .* most of them come from __schema\./,
    );
  });

  it('answers a refusal as GraphQL over HTTP answers a validation failure: 400 to graphql-response+json, 200 to application/json', async () => {
    const ask = (accept: string) =>
      sendGraphQL(server.url, `{ ${sixtyOneAliases} }`, { key: server.keys.viewer, headers: { accept } });
    const strict = await ask('application/graphql-response+json');
    expect(strict.status).toBe(400);
    expect(refusal(await strict.json())).toMatchObject({ measure: 'aliases' });
    const plain = await ask('application/json');
    expect(plain.status).toBe(200);
    expect(refusal(await plain.json())).toMatchObject({ measure: 'aliases' });
  });

  it('refuses a request body above the size limit with 413', async () => {
    const response = await sendGraphQL(server.url, '{ __typename }', {
      key: server.keys.viewer,
      variables: { padding: 'x'.repeat(1_100_000) },
    });
    expect(response.status).toBe(413);
  });

  /** Sends `text` as JSON in chunks of 64 KB, with no Content-Length (Transfer-Encoding: chunked). */
  const chunked = (text: string, { path = '/graphql', method = 'POST', key = server.keys.viewer } = {}) => {
    const bytes = new TextEncoder().encode(text);
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let at = 0; at < bytes.length; at += 65_536) controller.enqueue(bytes.subarray(at, at + 65_536));
        controller.close();
      },
    });
    return fetch(`${server.url}${path}`, {
      method,
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body,
      duplex: 'half',
    } as RequestInit);
  };

  it('counts a chunked body, which declares no length, as it arrives: past the limit 413 and nothing run, within it answered', async () => {
    const { result: large, statements } = await server.countStatements(() =>
      chunked(JSON.stringify({ query: '{ me { rowId } }', variables: { padding: 'x'.repeat(1_100_000) } })),
    );
    expect(large.status).toBe(413);
    expect((await large.json()).errors[0]).toMatchObject({
      message: 'Request body larger than 1048576 bytes',
      extensions: { code: 'PAYLOAD_TOO_LARGE' },
    });
    expect(ofTheRequest(statements)).toEqual([]);

    const small = await chunked(JSON.stringify({ query: '{ me { rowId } }' }));
    expect(small.status).toBe(200);
    expect((await small.json()).data.me.rowId).toEqual(expect.any(Number));
  });

  it('refuses a REST body past the limit with 413, by its declared length or as it streams, running nothing', async () => {
    const { data } = await server.graphql('{ whiteboards(first: 1) { edges { node { rowId name } } } }');
    const board = data!.whiteboards.edges[0].node;
    const path = `/api/whiteboard/v1/${board.rowId}/`;
    const large = JSON.stringify({ name: 'Too large', description: 'x'.repeat(1_100_000) });
    const refused = { detail: 'Request body larger than 1048576 bytes' };
    for (const send of [
      () =>
        fetch(`${server.url}${path}`, {
          method: 'PUT',
          headers: { 'content-type': 'application/json', 'x-api-key': server.keys.owner },
          body: large,
        }),
      () => chunked(large, { path, method: 'PUT', key: server.keys.owner }),
    ]) {
      const { result, statements } = await server.countStatements(send);
      expect(result.status).toBe(413);
      expect(await result.json()).toEqual(refused);
      expect(ofTheRequest(statements)).toEqual([]);
    }
    expect((await server.graphql(`{ whiteboard(rowId: ${board.rowId}) { name } }`)).data!.whiteboard.name).toBe(
      board.name,
    );

    const small = await chunked(JSON.stringify({ name: 'Streamed' }), { path, method: 'PUT', key: server.keys.owner });
    expect(small.status).toBe(200);
    expect(await small.json()).toMatchObject({ id: board.rowId, name: 'Streamed' });
  });
});

describe('an operation of many aliases of __typename', () => {
  it('is refused OPERATION_TOO_COMPLEX before it runs, rather than built into a statement PostgreSQL refuses (a 500)', async () => {
    const wide = `{ ${Array.from({ length: 3_000 }, (_, i) => `a${i}: __typename`).join(' ')} }`;
    const { result, statements } = await server.countStatements(() => server.graphql(wide));
    expect(result.status).toBe(400);
    expect(result.errors?.[0].extensions).toEqual({
      code: 'OPERATION_TOO_COMPLEX',
      measure: 'aliases',
      found: 3_000,
      limit: 60,
    });
    expect(ofTheRequest(statements)).toEqual([]);
  });
});

describe('a document, before it is parsed', () => {
  /** Posts `query` with no key at all: these bounds hold before the sender is known. */
  const anonymously = async (query: string) => {
    const response = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json' },
      body: JSON.stringify({ query }),
    });
    return { status: response.status, body: (await response.json()) as GraphQLResponse };
  };

  it('is refused past MAX_TOKENS tokens, whoever sends it, with nothing run', async () => {
    // 50,000 aliases took 1.6 s of CPU to parse and validate before the missing key was noticed.
    const wide = `{ ${Array.from({ length: 50_000 }, (_, i) => `a${i}: rowId`).join(' ')} }`;
    const { result, statements } = await server.countStatements(() => anonymously(wide));
    expect(result.status).toBe(400);
    expect(result.body.errors).toEqual([
      {
        message: 'Document holds more than 10000 tokens; the limit is 10000.',
        extensions: { code: 'OPERATION_TOO_COMPLEX', measure: 'tokens', limit: 10_000 },
      },
    ]);
    expect(statements).toEqual([]);

    const within = Array.from({ length: 2 }, (_, i) => `a${i}: me { rowId }`).join(' ');
    // { a0 : me { rowId } a1 : me { rowId } }: 14 tokens.
    const askSmall = askWith({ MAX_TOKENS: '14' });
    expect((await askSmall(`{ ${within} }`)).errors).toBeUndefined();
    expect((await askSmall(`{ ${within} b: me { rowId } }`)).errors?.[0].extensions).toMatchObject({
      measure: 'tokens',
      limit: 14,
    });
  });

  it('is refused when nested past what the parser takes, as a 400 naming the nesting rather than a 500', async () => {
    // graphql-js recursed out of Node's stack on 3,000 nested braces: "Maximum call stack size exceeded", a 500.
    for (const depth of [101, 3_000]) {
      const deep = `{ ${'a { '.repeat(depth)}b${' }'.repeat(depth)} }`;
      const { status, body } = await anonymously(deep);
      expect(status).toBe(400);
      expect(body.errors?.[0].extensions).toEqual({ code: 'OPERATION_TOO_COMPLEX', measure: 'nesting', limit: 100 });
    }
    // Brackets inside a string or a comment nest nothing.
    const quoted = `{ me { rowId } } # ${'{'.repeat(200)}\n`;
    expect((await server.graphql(`${quoted}`)).errors).toBeUndefined();
  });
});
