import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { encodeEvent, type LiveEvent } from '../src/live/events.js';
import { LiveHub } from '../src/live/hub.js';
import { openTestDatabase, postgresServerUrl } from './helpers/database.js';
import { until } from './helpers/live.js';

// The outbox every instance reads live events from (src/live/hub.ts), on PostgreSQL whatever engine
// the other suites use: only there do transactions commit side by side, in an order of their own.

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

const event = (rowId: number): LiveEvent => ({
  kind: 'UPDATED',
  type: 'Whiteboard',
  rowId,
  organizationId: 1,
  whiteboardId: rowId,
});
const sql = 'INSERT INTO live_event (payload) VALUES ($1)';
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A started hub (one instance's), and the row ids of the events it heard, in order. */
async function listening(): Promise<{ hub: LiveHub; heard: number[] }> {
  const hub = new LiveHub(() => database.database.engine, 10, 5);
  hubs.push(hub);
  const heard: number[] = [];
  await hub.start();
  hub.onEvent((received) => heard.push(received.rowId));
  return { hub, heard };
}

describe('live events through the outbox', () => {
  it('are read only once their transaction commits, by every instance, and never when it rolls back', async () => {
    const [one, two] = [await listening(), await listening()];
    const { prisma } = database.database;
    await expect(
      prisma.$transaction(async (tx) => {
        await tx.$executeRawUnsafe(sql, encodeEvent(event(1)));
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    await prisma.$transaction(async (tx) => {
      await tx.$executeRawUnsafe(sql, encodeEvent(event(2)));
      await pause(100);
      expect(one.heard).toEqual([]);
    });
    await until(() => one.heard.length > 0 && two.heard.length > 0);
    await pause(50);
    expect([one.heard, two.heard]).toEqual([[2], [2]]);
  });

  it('lose no event of a transaction that commits after a later one', async () => {
    const { heard } = await listening();
    const { prisma } = database.database;
    let commitFirst!: () => void;
    const held = new Promise<void>((resolve) => (commitFirst = resolve));
    let written!: () => void;
    const first = prisma.$transaction(async (tx) => {
      await tx.$executeRawUnsafe(sql, encodeEvent(event(10)));
      written();
      await held;
    });
    await new Promise<void>((resolve) => (written = resolve));
    // Its id comes after the first's, and it commits first: read once the first has ended, not skipped.
    await prisma.$executeRawUnsafe(sql, encodeEvent(event(11)));
    await pause(100);
    expect(heard).toEqual([]);
    commitFirst();
    await first;
    await until(() => heard.length === 2);
    expect(heard).toEqual([10, 11]);
  });

  it('are deleted once older than the previous prune', async () => {
    const { hub } = await listening();
    const { engine } = database.database;
    await engine.queryRows(sql, [encodeEvent(event(20))]);
    await hub.prune();
    expect((await engine.queryRows('SELECT count(*)::int FROM live_event', []))[0][0]).toBeGreaterThan(0);
    await hub.prune();
    expect((await engine.queryRows('SELECT count(*)::int FROM live_event', []))[0][0]).toBe(0);
  });
});
