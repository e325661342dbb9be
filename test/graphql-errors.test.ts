import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './helpers/server.js';

// How /graphql reports errors: statuses by the GraphQL-over-HTTP specification for both media
// types, and messages that quote only a prefix of a bad value.

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server?.close());

const mediaTypes = ['application/graphql-response+json', 'application/json'] as const;

async function post(body: string, accept: string, contentType = 'application/json') {
  const response = await fetch(`${server.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': contentType, accept, 'x-api-key': server.keys.owner },
    body,
  });
  const text = await response.text();
  return { status: response.status, contentType: response.headers.get('content-type'), body: text ? JSON.parse(text) : undefined };
}

const operation = (query: string, variables?: Record<string, unknown>) => JSON.stringify({ query, variables });

describe('HTTP statuses (GraphQL over HTTP)', () => {
  it('answers 200 with the errors in the body when there is data, null or not, whatever the codes', async () => {
    for (const accept of mediaTypes) {
      const malformedId = await post(operation('{ node(id: "zzz") { id } }'), accept);
      expect([accept, malformedId.status, malformedId.body.data, malformedId.body.errors[0].extensions.code]).toEqual([accept, 200, { node: null }, 'BAD_USER_INPUT']);
      const missingRow = await post(operation('mutation { deleteWhiteboard(input: { rowId: 999999 }) { deletedRowId } }'), accept);
      expect([accept, missingRow.status, missingRow.body.data, missingRow.body.errors[0].extensions.code]).toEqual([accept, 200, null, 'NOT_FOUND']);
    }
  });

  it('answers a request error 400 for application/graphql-response+json and 200 for application/json, without data', async () => {
    const requestErrors: [what: string, body: string, code: string][] = [
      ['parse', operation('{ whiteboards {'), 'GRAPHQL_PARSE_FAILED'],
      ['validation', operation('{ nope }'), 'GRAPHQL_VALIDATION_FAILED'],
      ['depth limit', operation(`{ me { ${'memberships { edges { node { user { '.repeat(4)}rowId${' } } } }'.repeat(4)} } }`), 'OPERATION_TOO_COMPLEX'],
      ['row limit', operation('{ whiteboards(first: 100) { edges { node { dataStreams(first: 100) { edges { node { slides(first: 100) { totalCount } } } } } } } }'), 'OPERATION_TOO_COMPLEX'],
      ['variable', operation('query($n: Int) { whiteboards(first: $n) { totalCount } }', { n: 'many' }), 'BAD_USER_INPUT'],
    ];
    for (const [what, body, code] of requestErrors) {
      for (const [accept, status] of [[mediaTypes[0], 400], [mediaTypes[1], 200]] as const) {
        const response = await post(body, accept);
        expect([what, accept, response.status, response.contentType, 'data' in response.body]).toEqual([what, accept, status, `${accept}; charset=utf-8`, false]);
        if (code !== 'BAD_USER_INPUT') expect([what, response.body.errors[0].extensions?.code]).toEqual([what, code]);
      }
    }
  });

  it('keeps 401 for a request without a valid key', async () => {
    for (const accept of mediaTypes) {
      const response = await fetch(`${server.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', accept }, body: operation('{ me { rowId } }') });
      expect([accept, response.status, (await response.json()).errors[0].extensions.code]).toEqual([accept, 401, 'UNAUTHENTICATED']);
    }
  });

  it('says what was wrong when the media type is not one it reads or writes (415, 406)', async () => {
    const unsupported = await post('{ me { rowId } }', mediaTypes[0], 'text/plain');
    expect(unsupported.status).toBe(415);
    expect(unsupported.body.errors[0]).toEqual({ message: expect.stringMatching(/^Unsupported Media Type: send the operation as application\/json/), extensions: { code: 'UNSUPPORTED_MEDIA_TYPE' } });
    const unacceptable = await post(operation('{ me { rowId } }'), 'application/xml');
    expect(unacceptable.status).toBe(406);
    expect(unacceptable.body.errors[0]).toEqual({ message: expect.stringMatching(/^Not Acceptable: .*application\/json/), extensions: { code: 'NOT_ACCEPTABLE' } });
  });
});

describe('messages', () => {
  it('quotes at most a short prefix of a bad value', async () => {
    const response = await server.graphql(`{ node(id: "${'z'.repeat(5_000)}") { id } }`);
    const [error] = response.errors!;
    expect(error.extensions?.code).toBe('BAD_USER_INPUT');
    expect(error.message).toBe(`"${'z'.repeat(100)}…" is not a valid global id`);
  });
});
