import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendGraphQL } from './helpers/graphql.js';
import { countRows } from '../src/db/seed/index.js';
import { ofTheRequest, startTestServer, type TestServer } from './helpers/server.js';

// How /graphql reports errors: statuses by the GraphQL-over-HTTP specification for both media
// types, and argument values PostgreSQL would refuse answered as bad input before any SQL.

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
  return {
    status: response.status,
    contentType: response.headers.get('content-type'),
    body: text ? JSON.parse(text) : undefined,
  };
}

const operation = (query: string, variables?: Record<string, unknown>) => JSON.stringify({ query, variables });

describe('HTTP statuses (GraphQL over HTTP)', () => {
  it('answers 200 with the errors in the body when there is data, null or not, whatever the codes', async () => {
    for (const accept of mediaTypes) {
      const malformedId = await post(operation('{ node(id: "zzz") { id } }'), accept);
      expect([accept, malformedId.status, malformedId.body.data, malformedId.body.errors[0].extensions.code]).toEqual([
        accept,
        200,
        { node: null },
        'BAD_USER_INPUT',
      ]);
      const missingRow = await post(
        operation('mutation { deleteWhiteboard(input: { rowId: 999999 }) { deletedRowId } }'),
        accept,
      );
      expect([accept, missingRow.status, missingRow.body.data, missingRow.body.errors[0].extensions.code]).toEqual([
        accept,
        200,
        null,
        'NOT_FOUND',
      ]);
    }
  });

  it('answers a request error 400 for application/graphql-response+json and 200 for application/json, without data', async () => {
    const requestErrors: [what: string, body: string, code: string][] = [
      ['parse', operation('{ whiteboards {'), 'GRAPHQL_PARSE_FAILED'],
      ['validation', operation('{ nope }'), 'GRAPHQL_VALIDATION_FAILED'],
      [
        'depth limit',
        operation(`{ me { ${'memberships { edges { node { user { '.repeat(4)}rowId${' } } } }'.repeat(4)} } }`),
        'OPERATION_TOO_COMPLEX',
      ],
      [
        'row limit',
        operation(
          '{ whiteboards(first: 100) { edges { node { dataStreams(first: 100) { edges { node { slides(first: 100) { totalCount } } } } } } } }',
        ),
        'OPERATION_TOO_COMPLEX',
      ],
      [
        'variable',
        operation('query($n: Int) { whiteboards(first: $n) { totalCount } }', { n: 'many' }),
        'BAD_USER_INPUT',
      ],
      [
        'stored value',
        operation('mutation { createWhiteboard(input: { name: "a\\u0000b" }) { whiteboard { rowId } } }'),
        'BAD_USER_INPUT',
      ],
    ];
    for (const [what, body, code] of requestErrors) {
      for (const [accept, status] of [
        [mediaTypes[0], 400],
        [mediaTypes[1], 200],
      ] as const) {
        const response = await post(body, accept);
        expect([what, accept, response.status, response.contentType, 'data' in response.body]).toEqual([
          what,
          accept,
          status,
          `${accept}; charset=utf-8`,
          false,
        ]);
        if (code !== 'BAD_USER_INPUT' || what === 'stored value')
          expect([what, response.body.errors[0].extensions?.code]).toEqual([what, code]);
      }
    }
  });

  it('keeps 401 for a request without a valid key', async () => {
    for (const accept of mediaTypes) {
      const response = await sendGraphQL(server.url, '{ me { rowId } }', { headers: { accept } });
      expect([accept, response.status, (await response.json()).errors[0].extensions.code]).toEqual([
        accept,
        401,
        'UNAUTHENTICATED',
      ]);
    }
  });

  it('says what was wrong when the media type is not one it reads or writes (415, 406)', async () => {
    const unsupported = await post('{ me { rowId } }', mediaTypes[0], 'text/plain');
    expect(unsupported.status).toBe(415);
    expect(unsupported.body.errors[0]).toEqual({
      message: expect.stringMatching(/^Unsupported Media Type: send the operation as application\/json/),
      extensions: { code: 'UNSUPPORTED_MEDIA_TYPE' },
    });
    const unacceptable = await post(operation('{ me { rowId } }'), 'application/xml');
    expect(unacceptable.status).toBe(406);
    expect(unacceptable.body.errors[0]).toEqual({
      message: expect.stringMatching(/^Not Acceptable: .*application\/json/),
      extensions: { code: 'NOT_ACCEPTABLE' },
    });
  });
});

describe('argument values PostgreSQL would refuse', () => {
  const code = (response: { errors?: { extensions?: Record<string, unknown> }[] }) => [
    response.errors?.[0]?.extensions?.code,
    response.errors?.[0]?.extensions?.field,
  ];

  it('refuses them in mutations, literal or in variables, naming the field, and writes nothing', async () => {
    const before = await countRows(server.database.prisma);
    const create =
      'mutation($input: CreateWhiteboardInput!) { createWhiteboard(input: $input) { whiteboard { rowId } } }';
    const literal = await server.graphql(
      'mutation { createWhiteboard(input: { name: "nul \\u0000 here" }) { whiteboard { rowId } } }',
    );
    expect(code(literal)).toEqual(['BAD_USER_INPUT', 'input.name']);
    expect(literal.errors![0].message).toBe('name must not contain the NUL character (U+0000)');
    expect(code(await server.graphql(create, { input: { name: 'board', description: 'a\u0000b' } }))).toEqual([
      'BAD_USER_INPUT',
      'input.description',
    ]);
    const instance =
      'mutation { createWhiteboardObjectInstance(input: { objectId: 1, x: 1e999 }) { whiteboardObjectInstance { rowId } } }';
    const infinite = await server.graphql(instance);
    expect(code(infinite)).toEqual(['BAD_USER_INPUT', 'input.x']);
    expect(infinite.errors![0].message).toBe('x must be a finite number');
    // Prisma would write 1.2345678901234567e300 as 1.234567890123457e300, and the largest double out of range.
    for (const x of ['1.2345678901234567e300', '1.7976931348623157e308']) {
      const rounded = await server.graphql(instance.replace('1e999', x));
      expect(code(rounded)).toEqual(['BAD_USER_INPUT', 'input.x']);
      expect(rounded.errors![0].message).toMatch(/^x needs 17 significant digits/);
    }
    for (const expiresAt of ['0000-12-31T00:00:00Z', '+010000-01-01T00:00:00Z']) {
      const key = await server.graphql(
        `mutation { createApiKey(input: { name: "k", permission: READ_ONLY, expiresAt: "${expiresAt}" }) { secret } }`,
      );
      expect(code(key)).toEqual(['BAD_USER_INPUT', 'input.expiresAt']);
      expect(key.errors![0].message).toBe('expiresAt must be between 0001-01-01 and 9999-12-31');
    }
    const deep = JSON.parse(`{"format": ${'['.repeat(70)}${']'.repeat(70)}}`);
    const nested = await server.graphql(
      'mutation($document: JSON) { importWhiteboard(input: { document: $document }) { whiteboard { rowId } } }',
      { document: deep },
    );
    expect(code(nested)).toEqual(['BAD_USER_INPUT', `document.format${'[0]'.repeat(63)}`]);
    expect(nested.errors![0].message).toMatch(/is nested deeper than 64 levels$/);
    expect(await countRows(server.database.prisma)).toEqual(before);
  });

  it('refuses them in reads before any SQL, read plans included', async () => {
    const nul = await server.countStatements(() =>
      server.graphql('{ whiteboards(filter: { name: { contains: "a\\u0000" } }) { totalCount } }'),
    );
    expect(code(nul.result)).toEqual(['BAD_USER_INPUT', 'filter.name.contains']);
    expect(ofTheRequest(nul.statements)).toEqual([]);
    const long = await server.countStatements(() =>
      server.graphql('query($text: String) { whiteboards(filter: { name: { eq: $text } }) { totalCount } }', {
        text: 'x'.repeat(10_001),
      }),
    );
    expect(code(long.result)).toEqual(['BAD_USER_INPUT', 'text']);
    expect(long.result.errors![0].message).toBe('text is longer than 10000 characters');
    expect(ofTheRequest(long.statements)).toEqual([]);
    // The longest accepted string is the longest text a column holds.
    expect(
      (
        await server.graphql('query($text: String) { whiteboards(filter: { name: { eq: $text } }) { totalCount } }', {
          text: 'x'.repeat(10_000),
        })
      ).data,
    ).toEqual({ whiteboards: { totalCount: 0 } });
  });

  it('quotes at most a short prefix of a bad value', async () => {
    const response = await server.graphql(`{ node(id: "${'z'.repeat(5_000)}") { id } }`);
    const [error] = response.errors!;
    expect(error.extensions?.code).toBe('BAD_USER_INPUT');
    expect(error.message).toBe(`"${'z'.repeat(100)}…" is not a valid global id`);
  });

  it('refuses a global id whose row id is beyond int4, in node and nodes alike', async () => {
    const tooLarge = Buffer.from('Whiteboard:9999999999').toString('base64');
    const lookups = await server.graphql(`{ node(id: "${tooLarge}") { id } }`);
    expect(code(lookups)).toEqual(['BAD_USER_INPUT', 'id']);
    const many = await server.graphql(`{ nodes(ids: ["${tooLarge}"]) { id } }`);
    expect(code(many)).toEqual(['BAD_USER_INPUT', 'id']);
    const largest = Buffer.from('Whiteboard:2147483647').toString('base64');
    expect((await server.graphql(`{ node(id: "${largest}") { id } }`)).data).toEqual({ node: null });
  });
});
