import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditServer } from 'graphql-http';
import { loadConfig } from '../src/config.js';
import { createApp } from '../src/http/app.js';
import { schema } from '../src/schema/index.js';
import { startTestServer, type TestServer } from './helpers/server.js';

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
        fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), 'x-api-key': server.keys.viewer } }),
    });
    const failed = results
      .filter((result) => result.status !== 'ok' && (result.name.startsWith('MUST') || result.name.startsWith('SHOULD')))
      .map((result) => `${result.name}: ${'reason' in result ? result.reason : ''}`);
    expect(failed).toEqual([]);
    expect(results.length).toBeGreaterThan(20);
  });
});

describe('operation limits', () => {
  const code = (response: { errors?: { extensions?: Record<string, unknown> }[] }) => response.errors?.[0]?.extensions?.code;

  it('refuses an operation nested deeper than the limit, naming it', async () => {
    const within = `{ whiteboards { edges { node { author { memberships(first: 2) { edges { node { organization { whiteboards(first: 2) { edges { node { dataStreams { edges { node { name } } } } } } } } } } } } } } }`;
    expect((await server.graphql(within)).errors).toBeUndefined();
    const deeper = within.replace('{ name }', '{ whiteboard { name } }');
    const response = await server.graphql(deeper);
    expect(code(response)).toBe('OPERATION_TOO_COMPLEX');
    expect(response.errors![0].message).toMatch(/depth limit of 15 exceeded, found 16/);
  });

  it('refuses an operation with too many aliases', async () => {
    const aliases = Array.from({ length: 61 }, (_, i) => `a${i}: me { rowId }`).join(' ');
    const response = await server.graphql(`{ ${aliases} }`);
    expect(code(response)).toBe('OPERATION_TOO_COMPLEX');
    expect(response.errors![0].message).toMatch(/aliases/i);
  });

  it('refuses an operation whose estimated cost is above the configured limit', async () => {
    const app = createApp({ schema, config: loadConfig({ MAX_COST: '50' }) });
    const query = '{ whiteboards { edges { node { name author { email } organization { name } dataStreams { edges { node { name } } } } } } }';
    const response = await app.request('/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': server.keys.viewer },
      body: JSON.stringify({ query }),
    });
    const body = await response.json();
    expect(code(body)).toBe('OPERATION_TOO_COMPLEX');
    expect(body.errors[0].message).toMatch(/cost limit of 50/i);
  });

  const boardsStreamsSlides = (boards: string, streams: string, slides: string) =>
    `whiteboards(${boards}) { edges { node { name dataStreams(${streams}) { edges { node { name slides(${slides}) { edges { node { name } } } } } } } } }`;

  it('refuses, before any SQL, an operation whose page sizes multiply past the row limit, counting through variables and fragments', async () => {
    // graphql-armor's cost multiplies by literal page sizes only; given as variables they escape it.
    const query = `query Big($boards: Int, $streams: Int, $slides: Int) { ...Boards }
      fragment Boards on Query { ${boardsStreamsSlides('first: $boards', 'first: $streams', 'last: $slides')} }`;
    const { result, statements } = await server.countStatements(() => server.graphql(query, { boards: 100, streams: 100, slides: 10 }));
    expect(code(result)).toBe('OPERATION_TOO_COMPLEX');
    expect(result.errors![0].message).toMatch(/up to 110100 rows .* the limit is 50000/);
    expect(result.data).toBeUndefined();
    expect(statements).toEqual([]);

    // 100 + 100 x 5 + 100 x 5 x 10 rows at most: answered.
    const smaller = await server.graphql(query, { boards: 100, streams: 5, slides: 10 });
    expect(smaller.errors).toBeUndefined();
    expect(smaller.data).toHaveProperty('whiteboards.edges');
  });

  it('counts a connection without first or last at the default page size of 20', async () => {
    const app = createApp({ schema, config: loadConfig({ MAX_NODES: '8419' }) });
    const ask = async (query: string) =>
      (await app.request('/graphql', { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': server.keys.viewer }, body: JSON.stringify({ query }) })).json();
    // 20 + 400 + 8,000 = 8,420.
    expect(code(await ask(`{ ${boardsStreamsSlides('', '', '')} }`.replace(/\(\)/g, '')))).toBe('OPERATION_TOO_COMPLEX');
    expect((await ask(`{ ${boardsStreamsSlides('first: 19', '', '')} }`.replace(/\(\)/g, ''))).errors).toBeUndefined();
  });

  it('refuses a request body above the size limit with 413', async () => {
    const response = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': server.keys.viewer },
      body: JSON.stringify({ query: `{ __typename }`, variables: { padding: 'x'.repeat(1_100_000) } }),
    });
    expect(response.status).toBe(413);
  });
});
