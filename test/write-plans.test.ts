import { parse } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../src/auth/api-keys.js';
import { resolvePrincipal } from '../src/auth/principal.js';
import { loadConfig } from '../src/config.js';
import { createApp, type Gateway } from '../src/http/app.js';
import type { Context } from '../src/schema/context.js';
import { schema } from '../src/schema/index.js';
import { writePlanFor } from '../src/write-plans/plan.js';
import type { OrganizationScopedModel } from '../src/auth/tenancy.js';
import { delegateOf } from '../src/db/delegate.js';
import { openTestDatabase } from './helpers/database.js';
import { poolsOf, type GeneratedDocument, type Pools } from './helpers/documents.js';
import { forEachRun, seedOf } from './helpers/properties.js';
import { crossOrganizationReferences, demoCallers, foreignRows, Visibility, type Caller } from './helpers/tenancy.js';
import { plannedMutations, WriteDocuments } from './helpers/write-documents.js';

// Random updates generated from the schema, sent by every kind of caller through the write plans and
// through the executor: the same write twice, so the answers must be equal (but for the time each
// write was made, and the version it made), refusals included, and show no row of an organization
// the caller is not in. Half the documents of variables expect their row's current version or a stale one.
// Drawn by fast-check (helpers/properties.ts): WRITE_SEED=<seed> replays a run.

const seed = seedOf('WRITE_SEED', 'test/write-plans.test.ts');
const documentsPerCaller = Number(process.env.WRITE_DOCUMENTS ?? 40);

let database: Awaited<ReturnType<typeof openTestDatabase>>;
let planned: Gateway;
let resolved: Gateway;
let callers: Caller[];
let visibility: Visibility;
let pools: Pools;

beforeAll(async () => {
  database = await openTestDatabase();
  const { prisma } = database.database;
  await crossOrganizationReferences(prisma);
  planned = createApp({ schema, config: loadConfig({}) });
  resolved = createApp({ schema, config: { ...loadConfig({}), readPlans: false } });
  const demo = await demoCallers(prisma, database.keys);
  // The demo's platform admin holds a read-only key; one that may write changes any organization's rows.
  const admin = demo.find((caller) => caller.isAdmin)!;
  const { secret } = await createApiKey(prisma, { userId: admin.userId, name: 'writes', permission: 'READ_WRITE' });
  callers = [...demo, { ...admin, key: secret }];
  visibility = await Visibility.of(prisma);
  pools = await poolsOf(prisma);
});
afterAll(async () => {
  await planned?.close();
  await resolved?.close();
  await database?.drop();
});

type Written = GeneratedDocument & { model: string; expecting?: 'current' | 'stale' };

/** The version a document expects of its row as it is now: the current one, or one before it (a row of no id: version 1). */
async function expectedVersion(document: Written): Promise<number | undefined> {
  if (!document.expecting) return undefined;
  const input = document.variables.input as { rowId?: number; id?: string };
  const rowId =
    input.rowId ??
    Number(
      Buffer.from(input.id ?? '', 'base64')
        .toString()
        .split(':')[1],
    );
  const row = Number.isSafeInteger(rowId)
    ? await delegateOf(database.database.prisma, document.model as OrganizationScopedModel)
        .findFirstOrThrow({ where: { id: rowId } })
        .catch(() => null)
    : null;
  const current = (row as { version?: number } | null)?.version ?? 1;
  return document.expecting === 'current' ? current : current - 1;
}

async function answer(gateway: Gateway, caller: Caller, document: Written): Promise<string> {
  const expected = await expectedVersion(document);
  const variables =
    expected === undefined
      ? document.variables
      : { input: { ...(document.variables.input as object), expectedVersion: expected } };
  const response = await gateway.request('/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': caller.key },
    body: JSON.stringify({ query: document.query, variables }),
  });
  // Each path writes the row in turn: the time and the version it answers are its own.
  const text = (await response.text())
    .replace(/"(\w*updatedAt)":"[^"]*"/gi, '"$1":"(when written)"')
    .replace(/"(\w*[vV]ersion)":\d+/g, '"$1":"(as written)"');
  return `${response.status} ${text}`;
}

describe('generated updates answer alike through the write plans and the executor', () => {
  it('plans the one-statement updates: update<Type> without cross-row checks, archive and unarchive', () => {
    const names = plannedMutations(schema).map(([name]) => name);
    expect(names).toEqual(expect.arrayContaining(['updateWhiteboard', 'archiveWhiteboard', 'unarchiveWhiteboard']));
    for (const name of names) expect(name).toMatch(/^(update|archive|unarchive)[A-Z]/);
    // An organization's rate is checked in the update's transaction: the executor answers it.
    expect(names).not.toContain('updateOrganization');
  });

  it('for every kind of caller', { timeout: 600_000 }, async () => {
    let [plannedCount, written, conflicts] = [0, 0, 0];
    for (const [index, caller] of callers.entries()) {
      const principal = await resolvePrincipal(caller.key);
      await forEachRun(seed + index, documentsPerCaller, async (random) => {
        const document = new WriteDocuments(schema, random, pools).next();
        const context = `WRITE_SEED=${seed}, caller ${index} ${caller.name}:\n${document.query}\n${JSON.stringify(document.variables)} expecting ${document.expecting ?? 'no version'}`;
        const plan = writePlanFor(
          schema,
          parse(document.query),
          undefined,
          { principal } as Context,
          document.variables,
        );
        const mayWrite = principal?.permission !== 'READ_ONLY';
        expect(typeof plan !== 'string', `${context}\nplanned: ${plan}`).toBe(mayWrite && !document.relation);
        if (typeof plan !== 'string') plannedCount++;
        const [fromPlan, fromExecutor] = [
          await answer(planned, caller, document),
          await answer(resolved, caller, document),
        ];
        expect(fromPlan, context).toBe(fromExecutor);
        const body = JSON.parse(fromPlan.slice(fromPlan.indexOf(' ') + 1));
        if (body.data) written++;
        // The version expected decides as the rules say: the current one never conflicts, a stale one never writes.
        const code = body.errors?.[0]?.extensions?.code;
        if (document.expecting === 'current') expect(code, context).not.toBe('CONFLICT');
        if (document.expecting === 'stale') {
          expect(
            Object.values(body.data ?? {}).every((value) => value === null),
            context,
          ).toBe(true);
          if (code === 'CONFLICT') conflicts++;
        }
        expect(foreignRows(schema, visibility, caller, body.data), context).toEqual([]);
        expect(fromPlan, context).not.toMatch(/^5|INTERNAL_SERVER_ERROR|Unexpected error/);
      });
    }
    // Most documents are planned, and enough of them write, for the comparison to weigh.
    expect(plannedCount).toBeGreaterThan(callers.length * documentsPerCaller * 0.4);
    expect(written).toBeGreaterThan(callers.length * documentsPerCaller * 0.15);
    expect(conflicts).toBeGreaterThan(0);
  });
});
