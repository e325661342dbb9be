import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Database } from '../src/db/index.js';
import type { DemoKeys } from '../src/db/seed/keys.js';
import { openTestDatabase, postgresServerUrl } from './helpers/database.js';
import { sendGraphQL } from './helpers/graphql.js';
import { startInstance } from './helpers/server.js';

// A retry that took a key over from an attempt still running (its lease ran out) and that older
// attempt never both make the change: each change of a keyed request holds only while its attempt
// holds the key (src/live/log.ts, stepFence). Two attempts running at once need two sessions, so this
// file runs on a PostgreSQL database of its own whatever the engine of the others.

let database: Database;
let keys: DemoKeys;
let url: string;
let drop: () => Promise<void>;
let instance: Awaited<ReturnType<typeof startInstance>>;

beforeAll(async () => {
  const opened = await openTestDatabase(postgresServerUrl());
  ({ database, keys, drop } = opened);
  url = opened.url!;
  instance = await startInstance();
});
afterAll(async () => {
  await instance?.close();
  await drop?.();
});

const create = `mutation($input: CreateWhiteboardInput!) { createWhiteboard(input: $input) { whiteboard { rowId name } } }`;

async function send(name: string, key: string) {
  const response = await sendGraphQL(instance.url, create, {
    variables: { input: { name } },
    key: keys.owner,
    headers: { 'Idempotency-Key': key },
  });
  return { status: response.status, body: await response.json() };
}

/** Sessions of the database waiting for a lock, asked on a connection of Prisma's (outside any transaction). */
const waiting = async () => {
  const [{ count }] = await database.prisma.$queryRaw<{ count: number }[]>`
    SELECT count(*)::int AS count FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`;
  return count;
};

it('an attempt whose key a retry took over is refused at its change: one row, made by the retry', async () => {
  const [name, key] = [`Fenced ${randomUUID()}`, randomUUID()];
  const board = await database.prisma.whiteboard.findFirstOrThrow({ orderBy: { id: 'asc' } });
  const other = new pg.Client({ connectionString: url });
  await other.connect();
  try {
    // The board's organization locked: a new board of it waits to insert.
    await other.query('BEGIN');
    await other.query('SELECT 1 FROM organization WHERE id = $1 FOR UPDATE', [board.organizationId]);
    const first = send(name, key);
    await expect.poll(waiting).toBe(1);
    // The first attempt's lease runs out while it waits: its retry takes the key over, and waits too.
    await database.prisma.idempotencyKey.updateMany({
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
    const rows = await database.prisma.whiteboard.findMany({ where: { name }, select: { id: true } });
    expect(rows).toEqual([{ id: newer.body.data.createWhiteboard.whiteboard.rowId }]);
    expect(await database.prisma.idempotencyKey.findFirst({ where: { key } })).toMatchObject({
      state: 'DONE',
      attempt: 2,
    });
  } finally {
    await other.end();
  }
});
