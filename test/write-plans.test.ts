import { parse } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../src/auth/api-keys.js';
import { resolvePrincipal } from '../src/auth/principal.js';
import { loadConfig } from '../src/config.js';
import { createApp, type Gateway } from '../src/http/app.js';
import type { Context } from '../src/schema/context.js';
import { schema } from '../src/schema/index.js';
import { writePlanFor } from '../src/write-plans/plan.js';
import { openTestDatabase } from './helpers/database.js';
import { poolsOf, type GeneratedDocument, type Pools } from './helpers/documents.js';
import { forEachRun, seedOf } from './helpers/properties.js';
import { crossOrganizationReferences, demoCallers, foreignRows, Visibility, type Caller } from './helpers/tenancy.js';
import { plannedMutations, WriteDocuments } from './helpers/write-documents.js';

// Random updates generated from the schema, sent by every kind of caller through the write plans and
// through the executor: the same write twice, so the answers must be equal (but for the time each
// write was made), refusals included, and show no row of an organization the caller is not in.
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

async function answer(gateway: Gateway, caller: Caller, document: GeneratedDocument): Promise<string> {
  const response = await gateway.request('/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': caller.key },
    body: JSON.stringify({ query: document.query, variables: document.variables }),
  });
  const text = (await response.text()).replace(/"(\w*updatedAt)":"[^"]*"/gi, '"$1":"(when written)"');
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
    let [plannedCount, written] = [0, 0];
    for (const [index, caller] of callers.entries()) {
      const principal = await resolvePrincipal(caller.key);
      await forEachRun(seed + index, documentsPerCaller, async (random) => {
        const document = new WriteDocuments(schema, random, pools).next();
        const context = `WRITE_SEED=${seed}, caller ${index} ${caller.name}:\n${document.query}\n${JSON.stringify(document.variables)}`;
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
        expect(foreignRows(schema, visibility, caller, body.data), context).toEqual([]);
        expect(fromPlan, context).not.toMatch(/^5|INTERNAL_SERVER_ERROR|Unexpected error/);
      });
    }
    // Most documents are planned, and enough of them write, for the comparison to weigh.
    expect(plannedCount).toBeGreaterThan(callers.length * documentsPerCaller * 0.4);
    expect(written).toBeGreaterThan(callers.length * documentsPerCaller * 0.15);
  });
});
