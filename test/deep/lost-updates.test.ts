import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase, postgresServerUrl } from '../helpers/database.js';
import { countConcurrently } from '../helpers/counter.js';
import { startGateway, type GatewayProcess } from '../helpers/processes.js';

// The proof of issue 41 on PostgreSQL: 64 writers at once each add 1 to a number kept in one board,
// 100 times, by reading it and writing it back. With expectedVersion, retrying on CONFLICT from the
// row it carries, all 6,400 increments count; without, the later of two writes that read the same
// value silently wins, and increments are lost.

const WRITERS = 64;
const INCREMENTS = 100;

let database: Awaited<ReturnType<typeof openTestDatabase>>;
let gateway: GatewayProcess;
let board: number;

beforeAll(async () => {
  database = await openTestDatabase(postgresServerUrl());
  gateway = await startGateway(
    { DATABASE_URL: database.url!, DATABASE_POOL_SIZE: '16', LOG_LEVEL: 'error' },
    database.keys,
  );
  const prisma = database.database.prisma;
  const owned = await prisma.whiteboard.findFirstOrThrow({ where: { organizationId: 1 } });
  board = (
    await prisma.whiteboard.create({
      data: { name: 'Counter', description: '0', authorId: owned.authorId, organizationId: 1 },
    })
  ).id;
}, 120_000);

afterAll(async () => {
  if (gateway?.server.child.exitCode === null) await gateway.stop();
  await database?.drop();
});

const reset = () => database.database.prisma.whiteboard.update({ where: { id: board }, data: { description: '0' } });

describe(`${WRITERS} writers, ${INCREMENTS} read-modify-writes each, on one board`, () => {
  it('with expectedVersion: every increment counts, the losers of each race told CONFLICT', async () => {
    await reset();
    const { value, conflicts } = await countConcurrently(gateway, board, {
      writers: WRITERS,
      increments: INCREMENTS,
      versioned: true,
    });
    expect(value).toBe(WRITERS * INCREMENTS);
    expect(conflicts).toBeGreaterThan(0);
    console.log(`${WRITERS * INCREMENTS} increments counted; ${conflicts} writes refused with CONFLICT and sent again`);
  }, 1_800_000);

  it('without: updates are lost and nobody is told', async () => {
    await reset();
    const { value, conflicts } = await countConcurrently(gateway, board, {
      writers: WRITERS,
      increments: INCREMENTS,
      versioned: false,
    });
    expect(conflicts).toBe(0);
    expect(value).toBeLessThan(WRITERS * INCREMENTS);
    console.log(`without versions: ${value} of ${WRITERS * INCREMENTS} increments counted`);
  }, 600_000);
});
