import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresServerUrl } from './helpers/database.js';
import { startTestServer, type TestServer } from './helpers/server.js';

// A change that PostgreSQL aborts because it collided with another transaction (a deadlock) is the
// caller's to send again, not a bug: CONFLICT, with `retryable`, never a 500. A deadlock needs two
// sessions, so this file runs on a PostgreSQL database of its own whatever the engine of the others.

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({}, { serverUrl: postgresServerUrl() });
});
afterAll(() => server?.close());

const move = `mutation($input: MoveWhiteboardObjectInstancesInput!) {
  moveWhiteboardObjectInstances(input: $input) { whiteboardObjectInstances { rowId x } }
}`;

describe('a change that deadlocks with another session', () => {
  it('is answered CONFLICT (retryable), changes nothing, and succeeds when sent again', async () => {
    const { prisma } = server.database;
    const object = await prisma.whiteboardObject.findFirstOrThrow({ orderBy: { id: 'asc' } });
    const [low, high] = await prisma.whiteboardObjectInstance.createManyAndReturn({
      data: [{ objectId: object.id }, { objectId: object.id }],
    });
    const input = { whiteboardId: object.whiteboardId, instances: [low, high].map(({ id }) => ({ rowId: id, x: 7 })) };
    const other = new pg.Client({ connectionString: server.databaseUrl });
    await other.connect();
    try {
      // The other session holds the higher row; the move locks the lower one, then waits for it.
      await other.query('BEGIN');
      await other.query('SELECT 1 FROM whiteboard_object_instance WHERE id = $1 FOR UPDATE', [high.id]);
      const answer = server.graphql(move, { input });
      // Asked on a session of its own: within a transaction, pg_stat_activity stays as it was first read.
      await expect
        .poll(async () => {
          const [{ waiting }] = await prisma.$queryRaw<{ waiting: number }[]>`
            SELECT count(*)::int AS waiting FROM pg_stat_activity
            WHERE datname = current_database() AND wait_event_type = 'Lock'`;
          return waiting;
        })
        .toBe(1);
      // Now the other session wants the lower row: a cycle, which PostgreSQL breaks by aborting the
      // session that has waited longest (the move) once deadlock_timeout has passed.
      await other.query('SELECT 1 FROM whiteboard_object_instance WHERE id = $1 FOR UPDATE', [low.id]);
      const response = await answer;
      expect(response.status).toBe(200);
      expect(response.errors?.[0]).toMatchObject({
        message: expect.stringMatching(/collided with another one .* send it again/),
        extensions: { code: 'CONFLICT', retryable: true },
      });
    } finally {
      await other.query('ROLLBACK');
      await other.end();
    }
    const rows = await prisma.whiteboardObjectInstance.findMany({ where: { id: { in: [low.id, high.id] } } });
    expect(rows.map((row) => row.x)).toEqual([0, 0]);
    const again = await server.graphql(move, { input });
    expect(
      again.data?.moveWhiteboardObjectInstances.whiteboardObjectInstances.map((row: { x: number }) => row.x),
    ).toEqual([7, 7]);
  });
});
