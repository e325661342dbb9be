import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Context } from '../src/schema/context.js';
import { schema } from '../src/schema/index.js';
import { openTestDatabase } from './helpers/database.js';
import { contextOf, documentedQueries, planReason, sampleVariables } from './helpers/plan-coverage.js';

// Every query the README, docs/ and the web client show is answered by one statement; one that is
// not must name its reason here (`npm run plan-coverage` counts the rest).
const allowedReasons = new Map<string, string>([
  // A 64-bit delivery id pages it, which the planner's cursors (int4 row ids) do not.
  ['docs/webhooks.md', 'Query.webhookDeliveries has a resolver'],
]);

let database: Awaited<ReturnType<typeof openTestDatabase>>;
let owner: Context;
beforeAll(async () => {
  database = await openTestDatabase();
  owner = await contextOf(database.keys.owner);
});
afterAll(() => database?.drop());

it('plans every documented query operation', () => {
  const queries = documentedQueries();
  expect(queries.map((query) => query.source)).toEqual(
    expect.arrayContaining([
      'docs/getting-started.md',
      'docs/reading-data.md',
      'examples/web-client/src/operations.graphql',
    ]),
  );
  for (const query of queries) {
    const reason = planReason(schema, owner, query.document, query.operationName, sampleVariables(schema, query));
    const name = `${query.source} ${query.operationName ?? ''}`.trim();
    expect(reason, name).toBe(allowedReasons.get(name));
  }
});
