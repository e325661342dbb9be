import { Ajv } from 'ajv';
import fc from 'fast-check';
import { getNamedType, isLeafType, isNonNullType } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { schema } from '../src/schema/index.js';
import { fromInputType, fromSchema, hostile, validOrNot, type JsonSchema } from './helpers/arbitraries.js';
import { rest, type RestResponse } from './helpers/rest.js';
import { startTestServer, type TestServer } from './helpers/server.js';

// Property-based: every operation of the OpenAPI document and every GraphQL mutation, with generated
// valid and invalid input. Nothing may answer 5xx; a 2xx matches its declared schema; a 4xx has the
// documented error body; a read-only key changes no row. The seed is printed: FUZZ_SEED=<seed> replays.

const seed = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);
const runs = Number(process.env.FUZZ_RUNS ?? 4);
console.log(
  `fuzz seed ${seed}, ${runs} runs per operation (replay: FUZZ_SEED=${seed} npx vitest run test/fuzz.test.ts)`,
);

interface Operation {
  method: string;
  path: string;
  parameters?: { name: string; in: 'path' | 'query'; required?: boolean; schema: JsonSchema }[];
  requestBody?: { content: Record<string, { schema: JsonSchema }> };
  responses: Record<string, { content?: Record<string, { schema: JsonSchema }> }>;
}

let server: TestServer;
let operations: Operation[];
let components: Record<string, JsonSchema>;
const ajv = new Ajv({ strict: false, allErrors: true, formats: { 'date-time': true, int32: true, binary: true } });

beforeAll(async () => {
  server = await startTestServer();
  const document = await (await fetch(`${server.url}/api/openapi.json`)).json();
  components = document.components.schemas;
  operations = Object.entries(document.paths as Record<string, Record<string, Operation>>).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({ ...operation, method: method.toUpperCase(), path })),
  );
}, 60_000);
afterAll(() => server?.close());

/** A request for an operation: path and query parameters, and a body in its media type. */
function requestFor(
  operation: Operation,
): fc.Arbitrary<{ path: string; json?: unknown; form?: Record<string, unknown> }> {
  const parameters = operation.parameters ?? [];
  const values = fc.record(
    Object.fromEntries(
      parameters.map((parameter) => [
        parameter.name,
        parameter.in === 'path'
          ? fc.oneof({ weight: 5, arbitrary: fromSchema(parameter.schema, components) }, hostile)
          : validOrNot(parameter.schema, components),
      ]),
    ),
    {
      requiredKeys: parameters
        .filter((parameter) => parameter.in === 'path' || parameter.required)
        .map((parameter) => parameter.name),
    },
  );
  const [mediaType, body] = Object.entries(operation.requestBody?.content ?? {})[0] ?? [];
  const bodies = body ? validOrNot(body.schema, components) : fc.constant(undefined);
  return fc.tuple(values, bodies).map(([given, payload]) => {
    const text = (value: unknown) => encodeURIComponent(typeof value === 'string' ? value : JSON.stringify(value));
    const path = operation.path.replace(/\{(\w+)\}/g, (_, name: string) => text(given[name]));
    const query = parameters
      .filter((parameter) => parameter.in === 'query' && parameter.name in given)
      .map((parameter) => `${parameter.name}=${text(given[parameter.name])}`);
    const url = query.length ? `${path}?${query.join('&')}` : path;
    return mediaType === 'multipart/form-data'
      ? { path: url, form: payload as Record<string, unknown> }
      : { path: url, json: payload };
  });
}

async function send(
  operation: Operation,
  request: { path: string; json?: unknown; form?: Record<string, unknown> },
  key: string,
): Promise<RestResponse> {
  if (!request.form || typeof request.form !== 'object')
    return rest(server, operation.method, request.path, { key, json: request.json ?? request.form });
  const form = new FormData();
  for (const [name, value] of Object.entries(request.form))
    form.set(name, value instanceof File ? value : typeof value === 'string' ? value : JSON.stringify(value));
  return rest(server, operation.method, request.path, { key, body: form });
}

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
      await property(index, requestFor(operation), async (request) =>
        checkAnswer(operation, await send(operation, request, server.keys.viewer)),
      );
    }
    expect(await fingerprints()).toEqual(before);
  }, 240_000);

  it('no operation answers 5xx, a 2xx matches its schema, a 4xx says what was wrong', async () => {
    // Reads first, deletes last, so the seeded rows serve as many operations as they can.
    const order = (operation: Operation) => ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].indexOf(operation.method);
    for (const [index, operation] of [...operations].sort((a, b) => order(a) - order(b)).entries()) {
      await property(1000 + index, requestFor(operation), async (request) =>
        checkAnswer(operation, await send(operation, request, server.keys.owner)),
      );
    }
  }, 240_000);
});

describe('GraphQL mutations, with generated input', () => {
  it('no mutation answers 5xx or an unexpected error', async () => {
    const mutations = Object.values(schema.getMutationType()!.getFields());
    for (const [index, mutation] of mutations.entries()) {
      const definitions = mutation.args.map((arg) => `$${arg.name}: ${arg.type}`).join(', ');
      const call = mutation.args.map((arg) => `${arg.name}: $${arg.name}`).join(', ');
      const selection = isLeafType(getNamedType(mutation.type)) ? '' : '{ __typename }';
      const document = `mutation Fuzz${definitions ? `(${definitions})` : ''} { ${mutation.name}${call ? `(${call})` : ''} ${selection} }`;
      const variables = fc.record(Object.fromEntries(mutation.args.map((arg) => [arg.name, fromInputType(arg.type)])), {
        requiredKeys: mutation.args.filter((arg) => isNonNullType(arg.type)).map((arg) => arg.name),
      });
      await property(2000 + index, variables, async (values) => {
        const answer = await server.graphql(document, values);
        const where = `${mutation.name} answered ${answer.status}: ${JSON.stringify(answer.errors)?.slice(0, 300)}`;
        expect(answer.status, where).toBeLessThan(500);
        for (const error of answer.errors ?? [])
          expect(error.extensions?.code, where).not.toBe('INTERNAL_SERVER_ERROR');
      });
    }
  }, 240_000);
});
