import { Ajv } from 'ajv';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { schema } from '../src/schema/index.js';
import type { JsonSchema } from './helpers/arbitraries.js';
import {
  mutationCalls,
  openApiOperations,
  requestFor,
  sendRequest,
  type FuzzRequest,
  type Operation,
} from './helpers/fuzz-requests.js';
import type { RestResponse } from './helpers/rest.js';
import { startTestServer, type TestServer } from './helpers/server.js';

// Property-based: every operation of the OpenAPI document and every GraphQL mutation, with generated
// valid and invalid input. Nothing may answer 5xx; a 2xx matches its declared schema; a 4xx has the
// documented error body; a read-only key changes no row. The seed is printed: FUZZ_SEED=<seed> replays.

const seed = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);
const runs = Number(process.env.FUZZ_RUNS ?? 4);
console.log(
  `fuzz seed ${seed}, ${runs} runs per operation (replay: FUZZ_SEED=${seed} npx vitest run test/fuzz.test.ts)`,
);

let server: TestServer;
let operations: Operation[];
let components: Record<string, JsonSchema>;
const ajv = new Ajv({ strict: false, allErrors: true, formats: { 'date-time': true, int32: true, binary: true } });

beforeAll(async () => {
  server = await startTestServer();
  ({ operations, components } = await openApiOperations(server.url));
}, 60_000);
afterAll(() => server?.close());

const send = (operation: Operation, request: FuzzRequest, key: string) =>
  sendRequest(server.url, operation, request, key);

const isValidationError = (entry: unknown) =>
  !!entry &&
  typeof entry === 'object' &&
  Array.isArray((entry as { loc?: unknown }).loc) &&
  typeof (entry as { msg?: unknown }).msg === 'string' &&
  typeof (entry as { type?: unknown }).type === 'string';

/** What every answer must be, whatever was sent. */
function checkAnswer(operation: Operation, response: RestResponse): void {
  const where = `${operation.method} ${operation.path} answered ${response.status}: ${JSON.stringify(response.body)?.slice(0, 300)}`;
  expect(response.status, where).toBeLessThan(500);
  if (response.status >= 400) {
    const detail = (response.body as { detail?: unknown } | undefined)?.detail;
    expect(
      typeof detail === 'string' || (Array.isArray(detail) && detail.length > 0 && detail.every(isValidationError)),
      where,
    ).toBe(true);
    return;
  }
  const declared = operation.responses[String(response.status)]?.content?.['application/json']?.schema;
  if (!declared) return;
  const validate = ajv.compile({ ...declared, components: { schemas: components } });
  expect(validate(response.body), `${where}\n${JSON.stringify(validate.errors?.slice(0, 3))}`).toBe(true);
}

/** Every row of every table, as one fingerprint per table (a key's last-use bookkeeping aside: it bumps updated_at too). */
async function fingerprints(): Promise<Record<string, string>> {
  const prisma = server.database.prisma;
  const tables = await prisma.$queryRawUnsafe<{ name: string }[]>(
    `SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' AND tablename <> '_prisma_migrations'`,
  );
  const entries = await Promise.all(
    tables.map(async ({ name }) => {
      const [row] = await prisma.$queryRawUnsafe<{ print: string | null }[]>(
        `SELECT md5(string_agg(r, ',' ORDER BY r)) AS print FROM (SELECT (to_jsonb(t)${name === 'api_key' ? " - 'last_used_at' - 'updated_at'" : ''})::text AS r FROM "${name}" t) rows`,
      );
      return [name, row.print ?? ''] as const;
    }),
  );
  return Object.fromEntries(entries);
}

const property = (index: number, arbitrary: fc.Arbitrary<any>, predicate: (value: any) => Promise<void>) =>
  // Bounded in time too, so the suite stays within minutes on a busy machine.
  fc.assert(fc.asyncProperty(arbitrary, predicate), {
    seed: seed + index,
    numRuns: runs,
    endOnFailure: true,
    interruptAfterTimeLimit: 3_000,
  });

describe('REST, with generated input', () => {
  it('a read-only key changes no row, whatever it sends to any operation', async () => {
    const before = await fingerprints();
    const writes = operations.filter((operation) => operation.method !== 'GET');
    for (const [index, operation] of writes.entries()) {
      await property(index, requestFor(operation, components), async (request) =>
        checkAnswer(operation, await send(operation, request, server.keys.viewer)),
      );
    }
    expect(await fingerprints()).toEqual(before);
  }, 240_000);

  it('no operation answers 5xx, a 2xx matches its schema, a 4xx says what was wrong', async () => {
    // Reads first, deletes last, so the seeded rows serve as many operations as they can.
    const order = (operation: Operation) => ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].indexOf(operation.method);
    for (const [index, operation] of [...operations].sort((a, b) => order(a) - order(b)).entries()) {
      await property(1000 + index, requestFor(operation, components), async (request) =>
        checkAnswer(operation, await send(operation, request, server.keys.owner)),
      );
    }
  }, 240_000);
});

describe('GraphQL mutations, with generated input', () => {
  it('no mutation answers 5xx or an unexpected error', async () => {
    for (const [index, { name, document, variables }] of mutationCalls(schema).entries()) {
      await property(2000 + index, variables, async (values) => {
        const answer = await server.graphql(document, values);
        const where = `${name} answered ${answer.status}: ${JSON.stringify(answer.errors)?.slice(0, 300)}`;
        expect(answer.status, where).toBeLessThan(500);
        for (const error of answer.errors ?? [])
          expect(error.extensions?.code, where).not.toBe('INTERNAL_SERVER_ERROR');
      });
    }
  }, 240_000);
});
