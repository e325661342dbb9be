import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileRoutes } from '../src/rest/index.js';
import { schema } from '../src/schema/index.js';
import { boardQuery, nestedQuery as nestedOfLevels } from '../bench/queries.js';
import { ofTheRequest, startTestServer, type TestServer } from './helpers/server.js';

// The statements each standard read sends, kept as .sql files beside this test (as PostGraphile's
// suite keeps them): a change of plan shows in review, even one that keeps the statement count.
// `vitest run -u` rewrites them after an intended change.

// The reads the benchmark times, so the suite checks the very operations measured.
const nestedQuery = nestedOfLevels(3);

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
  // The first request of a key also looks the key up; the snapshots show a cached key's statements.
  await server.graphql('{ __typename }');
});
afterAll(() => server?.close());

/** The statements of a read, which must answer `status`: a refusal's statements would be kept as the plan. */
async function statementsOf(work: () => Promise<{ status: number; body: unknown }>, status = 200): Promise<string> {
  const { result, statements } = await server.countStatements(work);
  expect(result.status, JSON.stringify(result.body)).toBe(status);
  return `${ofTheRequest(statements)
    .map((statement) => `${statement.trim()};`)
    .join('\n\n')}\n`;
}

/** A GraphQL read that must answer its data, no error. */
async function read(query: string, variables: Record<string, unknown>) {
  const answer = await server.graphql(query, variables);
  expect(answer.errors).toBeUndefined();
  return { status: answer.status, body: answer };
}

const fileName = (name: string) => `./sql/${name.replace(/[^A-Za-z0-9]+/g, '-').replace(/^-|-$/g, '')}.sql`;

describe('GraphQL standard reads', () => {
  it('the nested board read: one statement', async () => {
    const sql = await statementsOf(() => read(nestedQuery, { org: 1, first: 50 }));
    expect(sql.split(';\n').length - 1).toBe(1);
    await expect(sql).toMatchFileSnapshot(fileName('nested-board-read'));
  });

  it('the nested board read with pageInfo (case a2): one statement', async () => {
    const sql = await statementsOf(() => read(nestedOfLevels(3, 'pageInfo'), { org: 1, first: 50 }));
    expect(sql.split(';\n').length - 1).toBe(1);
    await expect(sql).toMatchFileSnapshot(fileName('nested-board-read-pageInfo'));
  });

  it('one board with everything on it: one statement', async () => {
    const sql = await statementsOf(() => read(boardQuery, { rowId: 1 }));
    expect(sql.split(';\n').length - 1).toBe(1);
    await expect(sql).toMatchFileSnapshot(fileName('one-board'));
  });
});

describe('REST reads', () => {
  // Every live GET route that needs no more than its path: its lists and lookups by id.
  const reads = compileRoutes(schema).filter(
    (route) => route.method === 'GET' && route.params.every((param) => param.in === 'path' || !param.required),
  );
  // What a route answers whose row 1 is none the demo owner reads, or which wants a query parameter: its
  // statements are those of the lookup that finds nothing (or none at all, for the refusal).
  const refusals: Record<string, number> = {
    // Row 1 is no entry, nor board of the archive, that the demo owner reads there.
    '/api/users/action-log/v1/{action_log_id}/': 404,
    '/api/whiteboard/archive/v1/{whiteboard_id}/': 404,
    // The demo data holds no webhook endpoint: its secret would be sealed under the operator's key.
    '/api/webhook/v1/endpoints/{endpoint_id}/': 404,
    '/api/webhook/v1/endpoints/{endpoint_id}/deliveries/': 404,
    // The choices of a board or of a class: one of whiteboard_id and class_conf_id.
    '/api/whiteboard/v1/object-attribute/code/choices/': 422,
  };
  it.each(reads.map((route) => [`${route.method} ${route.path}`, route] as const))('%s', async (_name, route) => {
    const sql = await statementsOf(async () => {
      const response = await fetch(server.url + route.path.replace(/\{\w+\}/g, '1'), {
        headers: { 'x-api-key': server.keys.owner },
      });
      return { status: response.status, body: await response.text() };
    }, refusals[route.path] ?? 200);
    await expect(sql).toMatchFileSnapshot(fileName(`rest ${route.method} ${route.path}`));
  });
});
