import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendGraphQL } from './helpers/graphql.js';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { loadTrustedDocuments } from '../src/http/trusted-documents.js';
import { rest } from './helpers/rest.js';
import { ofTheRequest, startTestServer, type TestServer } from './helpers/server.js';
import { scratchDirectory } from './helpers/scratch.js';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

const boards =
  'query Boards($first: Int) { whiteboards(first: $first) { edges { node { rowId name author { email } } } } }';
const me = 'query Me { me { rowId } }';
const unlisted = sha256('{ __typename }');

const directory = scratchDirectory('trusted-documents-');
/** Written as GraphQL Codegen's client preset writes persisted-documents.json: id to document. */
const manifest = join(directory, 'persisted-documents.json');
writeFileSync(manifest, JSON.stringify({ [sha256(boards)]: boards, [sha256(me)]: me }));

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ TRUSTED_DOCUMENTS: manifest });
});
afterAll(() => server?.close());

/** A request in the Apollo persisted-query form: the id in extensions, no query. */
async function persisted(id: string, variables?: Record<string, unknown>, query?: string) {
  const response = await sendGraphQL(server.url, query, {
    variables,
    key: server.keys.owner,
    extensions: { persistedQuery: { version: 1, sha256Hash: id } },
  });
  return { status: response.status, body: await response.json() };
}

describe('trusted documents', () => {
  it('run a listed document by its hash, over POST and GET', async () => {
    const answer = await persisted(sha256(boards), { first: 2 });
    expect(answer.status).toBe(200);
    expect(answer.body.errors).toBeUndefined();
    expect(answer.body.data.whiteboards.edges).toHaveLength(2);
    const extensions = encodeURIComponent(JSON.stringify({ persistedQuery: { version: 1, sha256Hash: sha256(me) } }));
    const get = await fetch(`${server.url}/graphql?extensions=${extensions}`, {
      headers: { 'x-api-key': server.keys.owner, accept: 'application/json' },
    });
    expect(get.status).toBe(200);
    expect((await get.json()).data.me.rowId).toEqual(expect.any(Number));
  });

  it('refuse an unlisted hash and any query sent as text, before anything runs', async () => {
    const { result: notListed, statements } = await server.countStatements(() => persisted(unlisted));
    expect(notListed.status).toBe(400);
    expect(notListed.body.data).toBeUndefined();
    expect(notListed.body.errors[0]).toMatchObject({
      message: `No trusted document has the id ${unlisted}`,
      extensions: { code: 'PERSISTED_QUERY_NOT_IN_LIST' },
    });
    expect(ofTheRequest(statements)).toEqual([]);

    const raw = await server.graphql(boards, { first: 2 });
    expect(raw.status).toBe(400);
    expect(raw.errors![0].extensions!.code).toBe('PERSISTED_QUERY_ID_REQUIRED');
    expect(raw.errors![0].message).toMatch(/^This server runs only trusted documents/);
    // A listed hash does not let a query of the client's own through beside it.
    expect((await persisted(sha256(me), undefined, boards)).body.errors[0].extensions.code).toBe(
      'PERSISTED_QUERY_ID_REQUIRED',
    );
    // application/json clients get 200 for a request error, as GraphQL over HTTP says.
    const legacy = await sendGraphQL(server.url, me, {
      key: server.keys.owner,
      headers: { accept: 'application/json' },
    });
    expect(legacy.status).toBe(200);
  });

  it('refuse a query sent as text over WebSocket, and run a listed one', async () => {
    const client = createClient({
      url: `${server.url.replace('http', 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { 'X-API-KEY': server.keys.owner },
    });
    const run = (payload: { query: string; extensions?: Record<string, unknown> }) =>
      new Promise<any>((resolve, reject) =>
        client.subscribe(payload, { next: resolve, error: reject, complete: () => {} }),
      );
    await expect(run({ query: me })).rejects.toMatchObject([{ extensions: { code: 'PERSISTED_QUERY_ID_REQUIRED' } }]);
    expect(
      (await run({ query: '', extensions: { persistedQuery: { version: 1, sha256Hash: sha256(me) } } })).data.me.rowId,
    ).toEqual(expect.any(Number));
    await client.dispose();
  });

  it('leave the REST routes answering: their operations are the gateway’s own', async () => {
    const answer = await rest(server, 'GET', '/api/whiteboard/v1/?limit=2');
    expect(answer.status).toBe(200);
    expect(answer.body).toHaveLength(2);
  });

  it('answer a persisted read in one SQL statement, from the read plan kept for the document', async () => {
    for (let i = 0; i < 2; i++) {
      const { result, statements } = await server.countStatements(() => persisted(sha256(boards), { first: 3 }));
      expect(result.body.data.whiteboards.edges).toHaveLength(3);
      expect(ofTheRequest(statements)).toHaveLength(1);
      // The read plan's statement writes the response's JSON text itself; Prisma's would select columns.
      expect(ofTheRequest(statements)[0]).toMatch(/^SELECT '\{"edges":/);
    }
  });

  it('load Apollo’s manifest form too, and refuse at start a document that does not parse', () => {
    const apollo = join(directory, 'apollo.json');
    writeFileSync(
      apollo,
      JSON.stringify({
        format: 'apollo-persisted-query-manifest',
        version: 1,
        operations: [{ id: 'abc', name: 'Me', type: 'query', body: me }],
      }),
    );
    expect([...loadTrustedDocuments(apollo).keys()]).toEqual(['abc']);
    const broken = join(directory, 'broken.json');
    writeFileSync(broken, JSON.stringify({ bad: 'query {' }));
    expect(() => loadTrustedDocuments(broken)).toThrow(
      `TRUSTED_DOCUMENTS: the document of bad in ${broken} does not parse`,
    );
  });
});
