import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demo } from '../src/db/seed/index.js';
import type { LiveEvent } from '../src/live/events.js';
import type { LiveHub } from '../src/live/hub.js';
import { MAX_MOVED_INSTANCES } from '../src/schema/objects/instance-moves.js';
import { expectNothingChanged, failure, keyFor } from './helpers/changes.js';
import { heardEvents, subscribeSse, until } from './helpers/live.js';
import { ofTheRequest, startTestServer, type TestServer } from './helpers/server.js';
import { globalId, type GraphQLResponse } from './helpers/graphql.js';

// moveWhiteboardObjectInstances: a dragged selection moved and resized in one statement, whatever
// its size, with an action log entry per instance and one live event; all or nothing.

let server: TestServer;
let hub: LiveHub;
let events: LiveEvent[];
/** The demo's Acme platform board with MAX_MOVED_INSTANCES instances more, another Acme board and a Globex board. */
const boards = { platform: 0, pipeline: 0, network: 0 };
/** Instance ids by board, in id order. */
const instances: Record<keyof typeof boards, number[]> = { platform: [], pipeline: [], network: [] };

beforeAll(async () => {
  server = await startTestServer();
  const prisma = server.database.prisma;
  ({ hub, events } = await heardEvents(() => server.database.engine));
  for (const name of Object.keys(boards) as (keyof typeof boards)[]) {
    boards[name] = (await prisma.whiteboard.findFirstOrThrow({ where: { name: demo.whiteboards[name].name } })).id;
  }
  const object = await prisma.whiteboardObject.findFirstOrThrow({ where: { whiteboardId: boards.platform } });
  await prisma.whiteboardObjectInstance.createMany({
    data: Array.from({ length: MAX_MOVED_INSTANCES }, (_, i) => ({ objectId: object.id, x: i, y: i })),
  });
  for (const name of Object.keys(boards) as (keyof typeof boards)[]) {
    const rows = await prisma.whiteboardObjectInstance.findMany({
      where: { object: { whiteboardId: boards[name] } },
      orderBy: { id: 'asc' },
    });
    instances[name] = rows.map((row) => row.id);
  }
  // The first request of a key also looks the key up; later ones find it cached.
  await server.graphql('{ me { rowId } }');
});
afterAll(() => {
  hub?.stop();
  return server?.close();
});

const move = `mutation($input: MoveWhiteboardObjectInstancesInput!) {
  moveWhiteboardObjectInstances(input: $input) { whiteboardObjectInstances { rowId x y width height zIndex updatedAt } }
}`;
const moveWithObjects = `mutation($input: MoveWhiteboardObjectInstancesInput!) {
  moveWhiteboardObjectInstances(input: $input) { whiteboardObjectInstances { rowId x object { rowId name } } }
}`;

type Moved = { rowId: number; x: number; y: number; width: number; height: number; zIndex: number; updatedAt: string };
const moved = (response: GraphQLResponse): Moved[] =>
  response.data!.moveWhiteboardObjectInstances.whiteboardObjectInstances;

/** The board's instances as stored, in id order. */
const stored = (board: keyof typeof boards) =>
  server.database.prisma.whiteboardObjectInstance.findMany({
    where: { object: { whiteboardId: boards[board] } },
    orderBy: { id: 'asc' },
  });

/** Waits until the hub (reading every 5 ms) has read every event committed so far, then forgets them. */
async function settledEvents(): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 100));
  events.length = 0;
}

describe('moving instances together', () => {
  it.each([1, 10, MAX_MOVED_INSTANCES])(
    'moves %i instances in one statement, logs each and announces them in one event',
    async (count) => {
      const prisma = server.database.prisma;
      const ids = instances.platform.slice(0, count);
      const input = {
        whiteboardId: boards.platform,
        instances: ids.map((rowId, i) => ({ rowId, x: 1000 + i, y: 5 - i * 0.5, width: 10, height: 20, zIndex: i })),
      };
      await settledEvents();
      const lastLog = (await prisma.userActionLog.findFirst({ orderBy: { id: 'desc' } }))?.id ?? 0;
      const { result, statements } = await server.countStatements(() => server.graphql(move, { input }));
      expect(result.errors).toBeUndefined();
      expect(ofTheRequest(statements)).toHaveLength(1);
      expect(
        moved(result).map(({ rowId, x, y, width, height, zIndex }) => ({ rowId, x, y, width, height, zIndex })),
      ).toEqual(input.instances);
      const rows = await prisma.whiteboardObjectInstance.findMany({
        where: { id: { in: ids } },
        orderBy: { id: 'asc' },
      });
      expect(rows.map(({ id, x, y, width, height, zIndex }) => ({ rowId: id, x, y, width, height, zIndex }))).toEqual(
        input.instances,
      );
      expect(new Set(moved(result).map((row) => row.updatedAt)).size).toBe(1);
      const logged = await prisma.userActionLog.findMany({ where: { id: { gt: lastLog } }, orderBy: { id: 'asc' } });
      expect(logged.map((entry) => entry.entityId).sort((a, b) => a - b)).toEqual(ids);
      expect(
        logged.every((entry) => entry.method === 'UPDATE' && entry.entityType === 'WhiteboardObjectInstance'),
      ).toBe(true);
      expect(logged.every((entry) => entry.organizationId === 1)).toBe(true);
      await expect.poll(() => events.length).toBe(1);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(events).toMatchObject([
        {
          kind: 'MOVED',
          type: 'Whiteboard',
          rowId: boards.platform,
          organizationId: 1,
          whiteboardId: boards.platform,
          rowIds: ids,
        },
      ]);
    },
  );

  it('changes only the fields given, and takes instances by global id too', async () => {
    const [first, second] = instances.platform;
    const before = await stored('platform');
    const id = globalId('WhiteboardObjectInstance', second);
    const response = await server.graphql(move, {
      input: {
        whiteboardId: boards.platform,
        instances: [
          { rowId: first, x: 7 },
          { id, height: 3 },
        ],
      },
    });
    expect(response.errors).toBeUndefined();
    const after = await stored('platform');
    const row = (id: number, rows: typeof before) => rows.find((candidate) => candidate.id === id)!;
    // A moved instance is at the next version; the others keep theirs.
    const moved = (id: number) => ({
      ...row(id, before),
      version: row(id, before).version + 1,
      updatedAt: expect.any(Date),
    });
    expect(row(first, after)).toMatchObject({ ...moved(first), x: 7 });
    expect(row(second, after)).toMatchObject({ ...moved(second), height: 3 });
    expect(after.filter((r) => r.id !== first && r.id !== second)).toEqual(
      before.filter((r) => r.id !== first && r.id !== second),
    );
  });

  it('answers relations in the payload with one statement more, whatever the number of instances', async () => {
    const counts: number[] = [];
    for (const count of [2, 40]) {
      const ids = instances.platform.slice(0, count);
      const { result, statements } = await server.countStatements(() =>
        server.graphql(moveWithObjects, {
          input: { whiteboardId: boards.platform, instances: ids.map((rowId) => ({ rowId, x: count })) },
        }),
      );
      expect(result.errors).toBeUndefined();
      expect(moved(result).map((row) => row.rowId)).toEqual(ids);
      expect(moved(result).every((row) => row.x === count)).toBe(true);
      counts.push(ofTheRequest(statements).length);
    }
    expect(counts).toEqual([2, 2]);
  });

  it('tells a subscriber of the board once, with every instance; the organization stream hears nothing', async () => {
    const board = await subscribeSse(
      server.url,
      server.keys.viewer,
      `subscription($id: Int!) { whiteboardEvents(whiteboardId: $id) {
        __typename ... on LiveEvent { kind type rowId whiteboardId }
        ... on ObjectInstancesMovedEvent { instanceRowIds instances { rowId x } }
      } }`,
      { id: boards.platform },
    );
    const organization = await subscribeSse(
      server.url,
      server.keys.viewer,
      'subscription { organizationWhiteboardEvents(organizationId: 1) { ... on LiveEvent { kind rowId } } }',
    );
    await until(() => server.gateway.live.size === 2);
    const ids = instances.platform.slice(0, 3).reverse();
    const response = await server.graphql(move, {
      input: { whiteboardId: boards.platform, instances: ids.map((rowId) => ({ rowId, x: 42 })) },
    });
    expect(response.errors).toBeUndefined();
    expect((await board.next()).data.whiteboardEvents).toEqual({
      __typename: 'ObjectInstancesMovedEvent',
      kind: 'MOVED',
      type: 'Whiteboard',
      rowId: boards.platform,
      whiteboardId: boards.platform,
      instanceRowIds: ids,
      instances: ids.map((rowId) => ({ rowId, x: 42 })),
    });
    // A rename reaches the organization's stream: had the move been told there, it would come first.
    await server.graphql(
      `mutation($id: Int!) { updateWhiteboard(input: { rowId: $id, name: "Moved around" }) { whiteboard { rowId } } }`,
      {
        id: boards.platform,
      },
    );
    expect((await organization.next()).data.organizationWhiteboardEvents).toEqual({
      kind: 'UPDATED',
      rowId: boards.platform,
    });
    board.close();
    organization.close();
    await until(() => server.gateway.live.size === 0);
  });
});

describe('a refused move changes nothing', () => {
  const input = (items: Record<string, unknown>[], whiteboardId = boards.platform) => ({
    input: { whiteboardId, instances: items },
  });

  /** Runs a move that must be refused: no row of any table added or removed, no instance changed, no event. */
  async function refused(variables: Record<string, unknown>, key?: string) {
    await settledEvents();
    const response = await expectNothingChanged(
      server,
      () => server.graphql(move, variables, key),
      () => server.database.prisma.whiteboardObjectInstance.findMany({ orderBy: { id: 'asc' } }),
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(events).toEqual([]);
    return response;
  }

  it('an instance named twice, naming the second', async () => {
    const [a, b] = instances.platform;
    const response = await refused(
      input([
        { rowId: a, x: 1 },
        { rowId: b, x: 2 },
        { rowId: a, x: 3 },
      ]),
    );
    expect(failure(response)).toEqual({ code: 'BAD_USER_INPUT', field: 'input.instances[2].rowId' });
    expect(response.errors![0].message).toBe(`instances[2] names object instance ${a} again (instances[0])`);
  });

  it('an instance of another board, of another organization or of none, naming the first such', async () => {
    const [a] = instances.platform;
    for (const other of [instances.pipeline[0], instances.network[0], 2_000_000_000]) {
      const response = await refused(
        input([
          { rowId: a, x: 5 },
          { rowId: other, x: 5 },
        ]),
      );
      expect(failure(response)).toEqual({ code: 'BAD_USER_INPUT', field: 'input.instances[1].rowId' });
      expect(response.errors![0].message).toBe(
        `instances[1]: object instance ${other} is not on whiteboard ${boards.platform}`,
      );
    }
    const byGlobalId = await refused(input([{ id: globalId('WhiteboardObjectInstance', instances.network[0]), x: 5 }]));
    expect(failure(byGlobalId)).toEqual({ code: 'BAD_USER_INPUT', field: 'input.instances[0].id' });
  });

  it('none, or more than the most', async () => {
    for (const items of [[], instances.platform.slice(0, MAX_MOVED_INSTANCES).concat(instances.pipeline[0])]) {
      const response = await refused(input(items.map((rowId) => ({ rowId, x: 1 }))));
      expect(failure(response)).toEqual({ code: 'BAD_USER_INPUT', field: 'input.instances' });
      expect(response.errors![0].message).toBe(
        `instances must name between 1 and ${MAX_MOVED_INSTANCES} object instances, not ${items.length}`,
      );
    }
  });

  it('a value out of range, a null, a target named twice or not at all, naming the field', async () => {
    const [a, b] = instances.platform;
    const cases: [Record<string, unknown>[], string, string][] = [
      [
        [
          { rowId: a, x: 1 },
          { rowId: b, width: -1 },
        ],
        'input.instances[1].width',
        'width must be between 0 and ∞',
      ],
      [[{ rowId: a, height: -0.5 }], 'input.instances[0].height', 'height must be between 0 and ∞'],
      [[{ rowId: a, x: null }], 'input.instances[0].x', 'x cannot be null'],
      [[{ rowId: a }, { x: 1 }], 'input.instances[1].id', 'give either id or rowId'],
      [
        [{ rowId: a, id: Buffer.from(`WhiteboardObjectInstance:${a}`).toString('base64') }],
        'input.instances[0].id',
        'give either id or rowId',
      ],
      [
        [{ id: Buffer.from(`WhiteboardObject:${a}`).toString('base64') }],
        'input.instances[0].id',
        'id is not a WhiteboardObjectInstance id',
      ],
    ];
    for (const [items, field, message] of cases) {
      const response = await refused(input(items));
      expect(failure(response)).toEqual({ code: 'BAD_USER_INPUT', field });
      expect(response.errors![0].message).toBe(message);
    }
  });

  it('a board of another organization or of none is not found; a viewer and a read-only key are forbidden', async () => {
    const [a] = instances.network;
    for (const [whiteboardId, key] of [
      [boards.network, server.keys.owner],
      [2_000_000_000, server.keys.owner],
    ] as const) {
      const response = await refused(input([{ rowId: a, x: 1 }], whiteboardId), key);
      expect(failure(response)).toEqual({ code: 'NOT_FOUND' });
      expect(response.errors![0].message).toBe('Whiteboard not found');
    }
    const [own] = instances.platform;
    const viewer = await keyFor(server, demo.users.viewer.email, 'READ_WRITE');
    const byRole = await refused(input([{ rowId: own, x: 1 }]), viewer);
    expect(failure(byRole)).toEqual({ code: 'FORBIDDEN' });
    expect(byRole.errors![0].message).toMatch(/^The VIEWER role may not /);
    const byKey = await refused(input([{ rowId: own, x: 1 }]), server.keys.viewer);
    expect(failure(byKey)).toEqual({ code: 'FORBIDDEN' });
    expect(byKey.errors![0].message).toBe('This API key is read-only');
  });
});

describe('concurrent changes', () => {
  it('moves of overlapping selections, named in opposite orders, all succeed (no deadlock)', async () => {
    const ids = instances.platform.slice(0, 50);
    const answers = await Promise.all(
      Array.from({ length: 16 }, (_, n) =>
        server.graphql(move, {
          input: {
            whiteboardId: boards.platform,
            instances: (n % 2 ? [...ids].reverse() : ids).map((rowId) => ({ rowId, x: n })),
          },
        }),
      ),
    );
    expect(answers.map((answer) => answer.errors)).toEqual(answers.map(() => undefined));
    const rows = await server.database.prisma.whiteboardObjectInstance.findMany({ where: { id: { in: ids } } });
    // One move was the last to write all fifty.
    expect(new Set(rows.map((row) => row.x)).size).toBe(1);
  });

  it('an instance deleted while the move waits for it stops the whole move', async () => {
    const prisma = server.database.prisma;
    const object = await prisma.whiteboardObject.findFirstOrThrow({ where: { whiteboardId: boards.pipeline } });
    const created = await prisma.whiteboardObjectInstance.createManyAndReturn({
      data: [{ objectId: object.id }, { objectId: object.id }, { objectId: object.id }],
    });
    const ids = created.map((row) => row.id);
    const request = () =>
      server.graphql(move, {
        input: { whiteboardId: boards.pipeline, instances: ids.map((rowId) => ({ rowId, x: 99 })) },
      });
    let response: GraphQLResponse;
    if (server.database.engine.kind === 'postgres') {
      // The delete holds its row until it commits; the move must wait for it, then find the row gone.
      let answer!: Promise<GraphQLResponse>;
      await prisma.$transaction(async (tx) => {
        await tx.whiteboardObjectInstance.delete({ where: { id: ids[1] } });
        answer = request();
        await expect
          .poll(async () => {
            const [{ waiting }] = await prisma.$queryRaw<{ waiting: bigint }[]>`
              SELECT count(*) AS waiting FROM pg_stat_activity
              WHERE datname = current_database() AND wait_event_type = 'Lock'`;
            return Number(waiting);
          })
          .toBe(1);
      });
      response = await answer;
    } else {
      // The embedded database runs one transaction at a time: the delete commits before the move.
      await prisma.whiteboardObjectInstance.delete({ where: { id: ids[1] } });
      response = await request();
    }
    expect(failure(response)).toEqual({ code: 'BAD_USER_INPUT', field: 'input.instances[1].rowId' });
    const rows = await prisma.whiteboardObjectInstance.findMany({ where: { id: { in: ids } }, orderBy: { id: 'asc' } });
    expect(rows.map((row) => [row.id, row.x])).toEqual([
      [ids[0], 0],
      [ids[2], 0],
    ]);
  });
});
