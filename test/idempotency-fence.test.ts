import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { postgresServerUrl } from './helpers/database.js';
import { createBoardKeyed } from './helpers/idempotency.js';
import { startTestServer, type TestServer } from './helpers/server.js';

// A retry that took a key over from an attempt still running (its lease ran out) and that older
// attempt never both make the change: each change of a keyed request holds only while its attempt
// holds the key (src/live/log.ts, stepFence). Two attempts running at once need two sessions, so this
// file runs on a PostgreSQL database of its own whatever the engine of the others.

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({}, { serverUrl: postgresServerUrl() });
});
afterAll(() => server?.close());

const send = (name: string, key: string) => createBoardKeyed(server, name, key);

/** Sessions of the database waiting for a lock, asked on a connection of Prisma's (outside any transaction). */
const waiting = async () => {
  const [{ count }] = await server.database.prisma.$queryRaw<{ count: number }[]>`
    SELECT count(*)::int AS count FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`;
  return count;
};

it('an attempt whose key a retry took over is refused at its change: one row, made by the retry', async () => {
  const [name, key] = [`Fenced ${randomUUID()}`, randomUUID()];
  const board = await server.database.prisma.whiteboard.findFirstOrThrow({ orderBy: { id: 'asc' } });
  const other = new pg.Client({ connectionString: server.databaseUrl });
  await other.connect();
  try {
    // The board's organization locked: a new board of it waits to insert.
    await other.query('BEGIN');
    await other.query('SELECT 1 FROM organization WHERE id = $1 FOR UPDATE', [board.organizationId]);
    const first = send(name, key);
    await expect.poll(waiting).toBe(1);
    // The first attempt's lease runs out while it waits: its retry takes the key over, and waits too.
    await server.database.prisma.idempotencyKey.updateMany({
      where: { key },
      data: { leaseUntil: new Date(Date.now() - 1000) },
    });
    const retry = send(name, key);
    await expect.poll(waiting).toBe(2);
    await other.query('ROLLBACK');
    const [older, newer] = await Promise.all([first, retry]);
    expect(older.body.errors[0].extensions.code).toBe('IDEMPOTENCY_KEY_IN_USE');
    expect(newer.status).toBe(200);
    expect(newer.body.errors).toBeUndefined();
    const rows = await server.database.prisma.whiteboard.findMany({ where: { name }, select: { id: true } });
    expect(rows).toEqual([{ id: newer.body.data.createWhiteboard.whiteboard.rowId }]);
    expect(await server.database.prisma.idempotencyKey.findFirst({ where: { key } })).toMatchObject({
      state: 'DONE',
      attempt: 2,
    });
  } finally {
    await other.end();
  }
});
