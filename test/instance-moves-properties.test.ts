import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../src/auth/api-keys.js';
import { roleAllows } from '../src/auth/roles.js';
import { loadConfig } from '../src/config.js';
import { demoKeyHolders } from '../src/db/seed/keys.js';
import type { Role } from '../src/generated/prisma/enums.js';
import { createApp, type Gateway } from '../src/http/app.js';
import { MAX_MOVED_INSTANCES } from '../src/schema/objects/instance-moves.js';
import { schema } from '../src/schema/index.js';
import { openTestDatabase } from './helpers/database.js';
import { forEachRun, seedOf, type Random } from './helpers/properties.js';
import { demoCallers, type Caller } from './helpers/tenancy.js';
import { globalId } from './helpers/graphql.js';

// Random moves by every kind of caller: boards of every organization and of none, instances of the
// board, of its organization's other boards, of another organization, of none and named twice, by
// row id or global id, values no check accepts. The answer must be what the rules say (the first
// refusal in their order, or the move), and the instances and the action log must change exactly as
// much: a refused move changes nothing, an allowed one only the instances it names. Drawn by
// fast-check (helpers/properties.ts): MOVE_SEED=<seed> replays a run; MOVE_DOCUMENTS sets the moves per caller.

const seed = seedOf('MOVE_SEED', 'test/instance-moves-properties.test.ts');
const documentsPerCaller = Number(process.env.MOVE_DOCUMENTS ?? 40);

const columns = ['x', 'y', 'width', 'height', 'zIndex'] as const;
type Item = { id?: string; rowId?: number } & { [C in (typeof columns)[number]]?: number | null };
type Outcome = { code: string; field?: string } | 'moved';

/** A caller with what the rules look at: whether the key may write, and the role in each organization. */
interface Writer extends Caller {
  writes: boolean;
  roles: Map<number, Role>;
}

let database: Awaited<ReturnType<typeof openTestDatabase>>;
let gateway: Gateway;
let writers: Writer[];
/** Every board's organization, and every instance's board. */
let boardOrganization: Map<number, number>;
let instanceBoard: Map<number, number>;

beforeAll(async () => {
  database = await openTestDatabase();
  const { prisma } = database.database;
  // Ten more instances on every board, so that moves name several of one board.
  for (const object of await prisma.whiteboardObject.findMany({ distinct: ['whiteboardId'] }))
    await prisma.whiteboardObjectInstance.createMany({
      data: Array.from({ length: 10 }, (_, i) => ({ objectId: object.id, x: i })),
    });
  gateway = createApp({ schema, config: loadConfig({}) });
  const demo = await demoCallers(prisma, database.keys);
  // Keys that may write for the demo's read-only holders (a viewer, the platform admin), to reach their roles.
  const writing = await Promise.all(
    demo
      .filter((caller) => demoKeyHolders[caller.name] === 'READ_ONLY')
      .map(async (caller) => ({
        ...caller,
        key: (await createApiKey(prisma, { userId: caller.userId, name: 'moves', permission: 'READ_WRITE' })).secret,
      })),
  );
  writers = await Promise.all(
    [...demo, ...writing].map(async (caller, i) => ({
      ...caller,
      writes: i >= demo.length || demoKeyHolders[caller.name] !== 'READ_ONLY',
      roles: new Map(
        (await prisma.userOrganization.findMany({ where: { userId: caller.userId } })).map((m) => [
          m.organizationId,
          m.role,
        ]),
      ),
    })),
  );
  boardOrganization = new Map((await prisma.whiteboard.findMany()).map((board) => [board.id, board.organizationId]));
  instanceBoard = new Map(
    (await prisma.whiteboardObjectInstance.findMany({ include: { object: true } })).map((row) => [
      row.id,
      row.object.whiteboardId,
    ]),
  );
});
afterAll(async () => {
  await gateway?.close();
  await database?.drop();
});

const NO_ROW = 2_000_000_000;

/** A random move: mostly a board the caller sees (now and then another's, or none), and instances mostly of it. */
function generate(random: Random, writer: Writer): { whiteboardId: number; instances: Item[] } {
  const pick = <T>(items: T[]): T => items[Math.floor(random() * items.length)];
  const boards = [...boardOrganization.keys()];
  const own = boards.filter((board) => writer.isAdmin || writer.organizations.has(boardOrganization.get(board)!));
  const board = random();
  const whiteboardId = board < 0.05 ? NO_ROW : board < 0.3 || !own.length ? pick(boards) : pick(own);
  const onBoard = [...instanceBoard].filter(([, board]) => board === whiteboardId).map(([id]) => id);
  const sameOrganization = [...instanceBoard]
    .filter(
      ([, board]) => board !== whiteboardId && boardOrganization.get(board) === boardOrganization.get(whiteboardId),
    )
    .map(([id]) => id);
  const elsewhere = [...instanceBoard]
    .filter(([, board]) => boardOrganization.get(board) !== boardOrganization.get(whiteboardId))
    .map(([id]) => id);
  const size = random();
  const count =
    size < 0.04 ? 0 : size < 0.07 ? MAX_MOVED_INSTANCES + 1 : size < 0.9 ? 1 + Math.floor(random() * 6) : 20;
  const chosen: number[] = [];
  const instances = Array.from({ length: count }, (): Item => {
    const from = random();
    const rowId =
      from < 0.03 && chosen.length
        ? pick(chosen)
        : from < 0.06 && sameOrganization.length
          ? pick(sameOrganization)
          : from < 0.09
            ? pick(elsewhere)
            : from < 0.1 || !onBoard.length
              ? NO_ROW
              : pick(onBoard);
    chosen.push(rowId);
    const named = random();
    const item: Item =
      named < 0.88
        ? { rowId }
        : named < 0.98
          ? { id: globalId('WhiteboardObjectInstance', rowId) }
          : named < 0.99
            ? { id: globalId('WhiteboardObject', rowId) }
            : named < 0.995
              ? {}
              : { rowId, id: globalId('WhiteboardObjectInstance', rowId) };
    for (const column of columns) {
      if (random() > 0.4) continue;
      const odd = random();
      const size = column === 'width' || column === 'height';
      item[column] =
        odd < 0.01
          ? null
          : odd < 0.03 && size
            ? -0.25 * (1 + Math.floor(random() * 40))
            : column === 'zIndex'
              ? Math.floor(random() * 100) - 10
              : 0.25 * Math.floor(random() * (size ? 4000 : 40000)) - (size ? 0 : 5000);
    }
    return item;
  });
  return { whiteboardId, instances };
}

/** What the rules answer, in their order: the key, the input's shape and values, the board, the role, the instances. */
function expected(writer: Writer, move: { whiteboardId: number; instances: Item[] }): Outcome {
  if (!writer.writes) return { code: 'FORBIDDEN' };
  const { instances } = move;
  if (instances.length === 0 || instances.length > MAX_MOVED_INSTANCES)
    return { code: 'BAD_USER_INPUT', field: 'input.instances' };
  const seen = new Set<number>();
  const ids: { rowId: number; field: string }[] = [];
  for (const [i, item] of instances.entries()) {
    const path = `input.instances[${i}]`;
    if ((item.id === undefined) === (item.rowId === undefined)) return { code: 'BAD_USER_INPUT', field: `${path}.id` };
    const [type, id] = item.id ? Buffer.from(item.id, 'base64').toString().split(':') : ['', String(item.rowId)];
    if (item.id && type !== 'WhiteboardObjectInstance') return { code: 'BAD_USER_INPUT', field: `${path}.id` };
    const field = `${path}.${item.id ? 'id' : 'rowId'}`;
    if (seen.has(Number(id))) return { code: 'BAD_USER_INPUT', field };
    seen.add(Number(id));
    for (const column of columns) {
      const value = item[column];
      if (value === null || ((column === 'width' || column === 'height') && value !== undefined && value < 0))
        return { code: 'BAD_USER_INPUT', field: `${path}.${column}` };
    }
    ids.push({ rowId: Number(id), field });
  }
  const organization = boardOrganization.get(move.whiteboardId);
  if (organization === undefined || !(writer.isAdmin || writer.organizations.has(organization)))
    return { code: 'NOT_FOUND' };
  if (!writer.isAdmin && !roleAllows(writer.roles.get(organization), 'editContent')) return { code: 'FORBIDDEN' };
  const foreign = ids.find(({ rowId }) => instanceBoard.get(rowId) !== move.whiteboardId);
  return foreign ? { code: 'BAD_USER_INPUT', field: foreign.field } : 'moved';
}

async function send(writer: Writer, input: unknown) {
  const response = await gateway.request('/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': writer.key },
    body: JSON.stringify({
      query: `mutation($input: MoveWhiteboardObjectInstancesInput!) {
        moveWhiteboardObjectInstances(input: $input) { whiteboardObjectInstances { rowId x y width height zIndex } }
      }`,
      variables: { input },
    }),
  });
  return (await response.json()) as {
    data?: { moveWhiteboardObjectInstances: { whiteboardObjectInstances: Record<string, number>[] } } | null;
    errors?: { extensions?: { code?: string; field?: string } }[];
  };
}

const instancesNow = async () =>
  new Map((await database.database.prisma.whiteboardObjectInstance.findMany()).map((row) => [row.id, row] as const));

describe('generated moves answer as the rules say, and change exactly what they name', () => {
  it('covers callers who may write, who may not by role, and whose key may not', () => {
    expect(writers.some((writer) => !writer.writes)).toBe(true);
    expect(writers.some((writer) => writer.writes && writer.isAdmin)).toBe(true);
    expect(writers.some((writer) => writer.writes && [...writer.roles.values()].includes('VIEWER'))).toBe(true);
  });

  it('for every caller', { timeout: 600_000 }, async () => {
    const { prisma } = database.database;
    const tally = { moved: 0, refused: 0 };
    for (const [index, writer] of writers.entries()) {
      await forEachRun(seed + index, documentsPerCaller, async (random) => {
        const move = generate(random, writer);
        const context = `MOVE_SEED=${seed}, caller ${index} ${writer.name}: ${JSON.stringify(move).slice(0, 600)}`;
        const outcome = expected(writer, move);
        const [before, logsBefore] = [await instancesNow(), await prisma.userActionLog.count()];
        const answer = await send(writer, move);
        const after = await instancesNow();
        if (outcome === 'moved') {
          tally.moved++;
          expect(answer.errors, context).toBeUndefined();
          const written = answer.data!.moveWhiteboardObjectInstances.whiteboardObjectInstances;
          expect(
            written.map((row) => row.rowId),
            context,
          ).toEqual(
            move.instances.map(
              (item) => item.rowId ?? Number(Buffer.from(item.id!, 'base64').toString().split(':')[1]),
            ),
          );
          for (const [i, row] of written.entries()) {
            const stored = after.get(row.rowId)!;
            const given = move.instances[i];
            for (const column of columns) {
              expect(stored[column], context).toBe(given[column] ?? before.get(row.rowId)![column]);
              expect(row[column], context).toBe(stored[column]);
            }
          }
          for (const [id, row] of before)
            if (!written.some((moved) => moved.rowId === id)) expect(after.get(id), context).toEqual(row);
          expect(await prisma.userActionLog.count(), context).toBe(logsBefore + written.length);
        } else {
          tally.refused++;
          const extensions = answer.errors?.[0]?.extensions;
          expect({ code: extensions?.code, field: extensions?.field }, context).toEqual({
            code: outcome.code,
            field: outcome.field,
          });
          expect(after, context).toEqual(before);
          expect(await prisma.userActionLog.count(), context).toBe(logsBefore);
        }
      });
    }
    // Both kinds happen often enough to prove something.
    expect(tally.moved).toBeGreaterThan(writers.length * documentsPerCaller * 0.1);
    expect(tally.refused).toBeGreaterThan(writers.length * documentsPerCaller * 0.2);
  });
});
