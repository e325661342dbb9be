import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LiveHub } from '../src/live/hub.js';
import { readHead, readPast } from '../src/live/log-read.js';
import { PRUNE_BATCH } from '../src/live/retention.js';
import { openTestDatabase, postgresServerUrl } from './helpers/database.js';
import { boardUpdatesSql, until } from './helpers/live.js';

// The change log every instance reads live events from (src/live/hub.ts), on PostgreSQL whatever
// engine the other suites use: only there do transactions commit side by side, in an order of their own.

let database: Awaited<ReturnType<typeof openTestDatabase>>;
let hubs: LiveHub[] = [];

beforeAll(async () => {
  database = await openTestDatabase(postgresServerUrl());
});
afterEach(() => {
  for (const hub of hubs) hub.stop();
  hubs = [];
});
afterAll(() => database?.drop());

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A started hub (one instance's) keeping `retentionDays`, and the row ids of the events it heard, in order. */
async function listening(retentionDays = 90): Promise<{ hub: LiveHub; heard: number[]; cursors: string[] }> {
  const hub = new LiveHub(() => database.database.engine, 10, 5, retentionDays);
  hubs.push(hub);
  const heard: number[] = [];
  const cursors: string[] = [];
  await hub.start();
  hub.onEvent((received) => {
    heard.push(received.rowId);
    cursors.push(received.cursor);
  });
  return { hub, heard, cursors };
}

const count = async (where: string) =>
  (await database.database.engine.queryRows(`SELECT count(*)::int FROM user_action_log WHERE ${where}`, []))[0][0];

describe('live events through the change log', () => {
  it('are read only once their transaction commits, by every instance, and never when it rolls back', async () => {
    const [one, two] = [await listening(), await listening()];
    const { prisma } = database.database;
    await expect(
      prisma.$transaction(async (tx) => {
        await tx.$executeRawUnsafe(boardUpdatesSql, 1, 1, 1);
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    await prisma.$transaction(async (tx) => {
      await tx.$executeRawUnsafe(boardUpdatesSql, 1, 2, 1);
      await pause(100);
      expect(one.heard).toEqual([]);
    });
    await until(() => one.heard.length > 0 && two.heard.length > 0);
    await pause(50);
    expect([one.heard, two.heard]).toEqual([[2], [2]]);
    // Both instances name the change by one cursor: a client may resume on either.
    expect(one.cursors).toEqual(two.cursors);
  });

  it('lose no event of a transaction that commits after a later one', async () => {
    const { heard } = await listening();
    const { prisma } = database.database;
    let commitFirst!: () => void;
    const held = new Promise<void>((resolve) => (commitFirst = resolve));
    let written!: () => void;
    const first = prisma.$transaction(async (tx) => {
      await tx.$executeRawUnsafe(boardUpdatesSql, 1, 10, 1);
      written();
      await held;
    });
    await new Promise<void>((resolve) => (written = resolve));
    // Its id comes after the first's, and it commits first: read once the first has ended, not skipped.
    await prisma.$executeRawUnsafe(boardUpdatesSql, 1, 11, 1);
    await pause(100);
    expect(heard).toEqual([]);
    commitFirst();
    await first;
    await until(() => heard.length === 2);
    expect(heard).toEqual([10, 11]);
  });

  it('are not read again when the database answers a horizon below the last read', async () => {
    // The horizon falls back when it counts a transaction of another database whose backend ended
    // between the snapshot and the look at the backends (CI saw a hub hand out four events twice).
    // Here a transaction of this database holds it back while the last read is past it.
    const { prisma, engine } = database.database;
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let begun!: () => void;
    const holding = new Promise<void>((resolve) => (begun = resolve));
    const holder = prisma.$transaction(async (tx) => {
      await tx.$queryRawUnsafe('SELECT txid_current()');
      begun();
      await held;
    });
    await holding;
    await prisma.$executeRawUnsafe(boardUpdatesSql, 1, 20, 1);
    const { identity, xmax } = await readHead(engine.queryRows);
    const past = await readPast(engine.queryRows, identity, xmax);
    release();
    await holder;
    const next = await readPast(engine.queryRows, identity, past.horizon);
    expect(past).toEqual({ horizon: xmax, changes: [] });
    expect(next.changes.map((change) => change.rowId)).not.toContain(20);
  });
});

describe('retention (CHANGE_LOG_RETENTION_DAYS)', () => {
  it('deletes the entries older than it in batches, notes the newest transaction deleted, and keeps the rest', async () => {
    const { engine, prisma } = database.database;
    const marker = 'retention test';
    // Every entry so far two days old, then more than a batch of such entries, then one of now.
    await prisma.$executeRawUnsafe(`UPDATE user_action_log SET created_at = now() - interval '2 days'`);
    await prisma.$executeRawUnsafe(
      `INSERT INTO user_action_log (user_id, organization_id, method, entity_type, entity_id, kind, created_at)
       SELECT 1, NULL, 'UPDATE', $1, n, 'UPDATED', now() - interval '2 days' FROM generate_series(1, $2::int) n`,
      marker,
      PRUNE_BATCH + 10,
    );
    await prisma.$executeRawUnsafe(
      `INSERT INTO user_action_log (user_id, method, entity_type, entity_id, kind) VALUES (1, 'UPDATE', $1, 0, 'UPDATED')`,
      marker,
    );
    const { hub } = await listening(1);
    const [[oldXid]] = await engine.queryRows(
      `SELECT max(xid)::text FROM user_action_log WHERE created_at < now() - interval '1 day'`,
      [],
    );
    expect(await hub.prune()).toBeGreaterThanOrEqual(PRUNE_BATCH + 10);
    expect(await count('true')).toBe(1);
    expect(await count(`entity_type = '${marker}'`)).toBe(1);
    expect((await readHead(engine.queryRows)).prunedXid).toBe(oldXid);
    // Nothing older is left: the next run deletes nothing and notes nothing new.
    expect(await hub.prune()).toBe(0);
  });

  it('keeps every entry at 0', async () => {
    const { prisma } = database.database;
    await prisma.$executeRawUnsafe(
      `INSERT INTO user_action_log (user_id, method, entity_type, entity_id, created_at) VALUES (1, 'UPDATE', 'kept', 0, now() - interval '10 years')`,
    );
    const { hub } = await listening(0);
    expect(await hub.prune()).toBe(0);
    expect(await count(`entity_type = 'kept'`)).toBe(1);
  });
});
