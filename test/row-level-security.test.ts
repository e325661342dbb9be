import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { organizationPath } from '../src/auth/tenancy.js';
import { db } from '../src/db/index.js';
import { inReadScope, rowSecurityBypass, type ReadScope } from '../src/db/row-security.js';
import { buildCatalog } from '../src/schema/model-catalog.js';
import { openTestDatabase, postgresServerUrl, tableOwnerRole } from './helpers/database.js';
import { crossOrganizationReferences, demoCallers, graphModels, Visibility, type Caller } from './helpers/tenancy.js';
import { addWebhookEndpoints } from './helpers/webhooks.js';

// PostgreSQL's row-level security, the second lock behind each statement's own tenancy
// (ROW_LEVEL_SECURITY): always on PostgreSQL, whatever engine the other suites use, in a database
// owned by a role that is no superuser, since a superuser passes every policy.

let database: Awaited<ReturnType<typeof openTestDatabase>>;
let callers: Caller[];
let visibility: Visibility;

beforeAll(async () => {
  database = await openTestDatabase(postgresServerUrl(), { owner: tableOwnerRole });
  await crossOrganizationReferences(database.database.prisma);
  await addWebhookEndpoints(database.database.prisma);
  callers = await demoCallers(database.database.prisma, database.keys);
  visibility = await Visibility.of(database.database.prisma);
});
afterAll(() => database?.drop());

const models = graphModels;
const scopeOf = (caller: Caller): ReadScope => ({
  organizations: caller.isAdmin ? '' : `{${[...caller.organizations].join(',')}}`,
  user: String(caller.userId),
});
const ids = async (table: string, scope?: ReadScope) => {
  const read = () => db().queryRows(`SELECT id FROM "${table}" ORDER BY id`, []);
  return (await (scope ? inReadScope(scope, read) : read())).map(([id]) => id as number);
};

describe('row-level security', () => {
  it('guards the table of every model but rates, and forces its policy on the owner', async () => {
    const catalog = buildCatalog(database.database.prisma);
    const guarded = await database.database.engine.query<{ table: string }>(
      `SELECT c.relname AS table FROM pg_class c JOIN pg_policies p ON p.tablename = c.relname AND p.policyname = 'tenancy'
       WHERE c.relrowsecurity AND c.relforcerowsecurity AND c.relnamespace = 'public'::regnamespace ORDER BY 1`,
    );
    // Webhook deliveries are no model of the graph (reached through their endpoint) but guarded all the same.
    const expected = [
      ...models.filter((model) => model !== 'Rate').map((model) => catalog.get(model)!.table),
      'webhook_delivery',
    ];
    expect(guarded.map((row) => row.table)).toEqual(expected.sort());
  });

  it('shows each caller, of a table read with no condition at all, exactly the rows its tenancy allows', async () => {
    const catalog = buildCatalog(database.database.prisma);
    for (const caller of callers) {
      for (const model of models) {
        const table = catalog.get(model)!.table;
        const all = await ids(table);
        const allowed = all.filter((id) => visibility.mayUserSee(caller, model, id));
        expect(await ids(table, scopeOf(caller)), `${caller.name}: ${model}`).toEqual(allowed);
      }
    }
    // Every path of organizationPath has a policy that follows it (the model list covers them all).
    expect(
      models
        .filter((model) => !['Rate', 'User', 'ApiKey'].includes(model))
        .every((model) => organizationPath(model as never).length > 0),
    ).toBe(true);
  });

  it('holds nothing back outside a read, on a connection that served one', async () => {
    const globex = callers.find((caller) => caller.name === 'globexOwner')!;
    const all = await ids('whiteboard');
    // One connection at a time, so the unscoped read runs where the scoped one ran.
    for (let round = 0; round < 3; round++) {
      expect((await ids('whiteboard', scopeOf(globex))).length).toBeLessThan(all.length);
      expect(await ids('whiteboard')).toEqual(all);
    }
  });

  it('sets the scope again after a rolled-back transaction took it back', async () => {
    const globex = callers.find((caller) => caller.name === 'globexOwner')!;
    const allowed = (await ids('whiteboard')).filter((id) => visibility.mayUserSee(globex, 'Whiteboard', id));
    const prisma = database.database.prisma;
    await expect(
      inReadScope(scopeOf(globex), () =>
        prisma.$transaction(async (tx) => {
          await tx.whiteboard.count();
          throw new Error('roll back');
        }),
      ),
    ).rejects.toThrow('roll back');
    for (let round = 0; round < 3; round++) expect(await ids('whiteboard', scopeOf(globex))).toEqual(allowed);
  });

  it('keeps its own scope for a read that waited for a connection another read handed over', async () => {
    const [globex, acme] = ['globexOwner', 'owner'].map((name) => callers.find((caller) => caller.name === name)!);
    const all = await ids('whiteboard');
    const allowed = (caller: Caller) => all.filter((id) => visibility.mayUserSee(caller, 'Whiteboard', id));
    // More slow reads of one caller than the pool has connections (4 in tests), so that the reads
    // queued behind them get their connection from a read of that caller as it ends.
    const occupy = (caller: Caller) =>
      Array.from({ length: 8 }, () => inReadScope(scopeOf(caller), () => db().queryRows('SELECT pg_sleep(0.05)', [])));
    const slow = occupy(globex);
    const [unscoped, other] = await Promise.all([ids('whiteboard'), ids('whiteboard', scopeOf(acme))]);
    await Promise.all(slow);
    expect(unscoped).toEqual(all);
    expect(other).toEqual(allowed(acme));
  });

  it("keeps each caller's scope for lookups sent in the same tick, which Prisma merges only within one", async () => {
    const [globex, acme] = ['globexOwner', 'owner'].map((name) => callers.find((caller) => caller.name === name)!);
    const { prisma, onQuery } = database.database;
    const boards = await prisma.whiteboard.findMany({ select: { id: true, organizationId: true } });
    const [own, other] = [globex, acme].map(
      (caller) => boards.find((board) => caller.organizations.has(board.organizationId))!,
    );
    // One scope per caller, as one request has one.
    const scopes = new Map([globex, acme].map((caller) => [caller, scopeOf(caller)]));
    const lookUp = (caller: Caller, id: number) =>
      inReadScope(
        scopes.get(caller)!,
        async () => await prisma.whiteboard.findUnique({ where: { id }, select: { id: true } }),
      );
    const statements: string[] = [];
    const count = (sql: string) => statements.push(sql);
    onQuery.add(count);
    try {
      // Each caller's own board, and the other's: merged across callers, the second ran under the first's scope.
      const answers = await Promise.all([
        lookUp(globex, own.id),
        lookUp(acme, other.id),
        lookUp(globex, other.id),
        lookUp(acme, own.id),
      ]);
      expect(answers).toEqual([{ id: own.id }, { id: other.id }, null, null]);
      // Two statements, one per caller: each caller's two lookups were still merged.
      expect(statements).toHaveLength(2);
    } finally {
      onQuery.delete(count);
    }
  });

  it('is refused at start to a role that passes every policy', async () => {
    expect(await rowSecurityBypass(database.database.engine)).toBeUndefined();
    const { engine } = database.database;
    const superuser = await engine.query<{ bypasses: boolean }>(
      'SELECT usesuper AS bypasses FROM pg_user WHERE usename = current_user',
    );
    expect(superuser[0].bypasses).toBe(false);
  });
});
