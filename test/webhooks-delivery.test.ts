import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { registry } from '../src/observability/metrics.js';
import { messageIdOf } from '../src/webhooks/events.js';
import { SecretBox } from '../src/webhooks/secret-box.js';
import { newSigningSecret } from '../src/webhooks/signature.js';
import { startWebhooks } from '../src/webhooks/index.js';
import { claimDeliveries, pruneDeliveries } from '../src/webhooks/store.js';
import { rest } from './helpers/rest.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { MemoryFeed, Receiver, webhookEnv, type ChangeOf } from './helpers/webhooks.js';
import type { ChangeFeed } from '../src/webhooks/feed.js';

// The dispatcher over a real database and real HTTP receivers that verify every signature with the
// `standardwebhooks` package. Until the change log feeds it, the changes come from a log kept in
// memory (MemoryFeed) through the same interface; everything after (delivery rows, claims, leases,
// retries, dead letters) is the production path. The gateway itself runs without webhooks, so the
// dispatchers here are the only ones, started and stopped as each test needs; the endpoints are
// written as createWebhookEndpoint writes them (test/webhooks-api.test.ts makes them over both doors).

const config = loadConfig({ ...webhookEnv, WEBHOOK_CONCURRENCY: '2' }).webhooks!;
let server: TestServer;
let feed: MemoryFeed;
let receiver: Receiver;
let acme: number;
let globex: number;
let boards: number[];
const running: ReturnType<typeof startWebhooks>[] = [];

/** A dispatcher of one more instance, reading `feed`. */
function instance() {
  const started = startWebhooks(config, { feed });
  running.push(started);
  return started.webhooks.dispatcher;
}

beforeAll(async () => {
  server = await startTestServer();
  const prisma = server.database.prisma;
  [acme, globex] = (await prisma.organization.findMany({ orderBy: { id: 'asc' } })).map((org) => org.id);
  boards = (await prisma.whiteboard.findMany({ where: { organizationId: acme }, orderBy: { id: 'asc' } })).map(
    (board) => board.id,
  );
});
afterEach(async () => {
  await Promise.all(running.splice(0).map((started) => started.stop()));
  await receiver?.close();
  await server.database.prisma.webhookEndpoint.deleteMany();
});
afterAll(() => server?.close());

/**
 * A new receiver and an endpoint of Acme's pointing at it, written as createWebhookEndpoint writes one
 * (its secret sealed, its cursor at the log's head); the receiver knows the secret.
 */
async function endpointFor(input: { eventTypes?: string[]; whiteboardIds?: number[] } = {}): Promise<number> {
  receiver = await Receiver.start();
  receiver.secret = newSigningSecret();
  const endpoint = await server.database.prisma.webhookEndpoint.create({
    data: {
      organizationId: acme,
      url: receiver.url,
      eventTypes: input.eventTypes ?? ['*'],
      whiteboardIds: input.whiteboardIds ?? [],
      secret: new SecretBox(config.encryptionKeys).seal(receiver.secret, acme),
      cursor: await feed.head(),
    },
  });
  return endpoint.id;
}

const boardChange = (board: number, rowId: number, kind: ChangeOf['kind'] = 'UPDATED'): ChangeOf => ({
  kind,
  type: 'Slide',
  rowId,
  whiteboardId: board,
  organizationId: acme,
});

const deliveries = (endpointId: number) =>
  server.database.prisma.webhookDelivery.findMany({ where: { endpointId }, orderBy: { id: 'asc' } });

async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > until)
      throw new Error(
        `not reached in ${timeoutMs} ms: ${JSON.stringify(value, (_k, v) => (typeof v === 'bigint' ? String(v) : v))}`,
      );
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Makes a waiting delivery of the endpoint due now, as if its backoff had run out. */
const dueNow = (endpointId: number) =>
  server.database.prisma.webhookDelivery.updateMany({
    where: { endpointId, state: 'PENDING' },
    data: { nextAttemptAt: new Date(Date.now() - 1000) },
  });

describe('delivery', () => {
  it('sends each change an endpoint asks for, signed, from the moment it was made', async () => {
    /** The count of delivered attempts, as /metrics would show it. */
    const delivered = async () =>
      Number(
        /^webhook_attempt_duration_seconds_count\{outcome="delivered"\} (\d+)$/m.exec(await registry.metrics())?.[1] ??
          0,
      );
    const deliveredBefore = await delivered();
    feed = new MemoryFeed();
    feed.append(boardChange(boards[0], 1));
    const dispatcher = instance();
    const endpointId = await endpointFor();
    const [change] = feed.append(boardChange(boards[0], 2));
    dispatcher.wake();
    const [received] = await receiver.waitFor(1);
    expect(received.verified).toBe(true);
    expect(received.messageId).toBe(messageIdOf(change));
    expect(Math.abs(received.timestamp * 1000 - Date.now())).toBeLessThan(5_000);
    expect(received.body).toEqual({
      type: 'slide.updated',
      timestamp: change.committedAt.toISOString(),
      data: expect.objectContaining({
        kind: 'UPDATED',
        type: 'Slide',
        rowId: 2,
        whiteboardId: boards[0],
        cursor: change.cursor,
      }),
    });
    const [row] = await eventually(
      () => deliveries(endpointId),
      (rows) => rows[0]?.state === 'DELIVERED',
    );
    expect(row).toMatchObject({ attempts: 1, lastStatus: 204, messageId: received.messageId });
    expect((await delivered()) - deliveredBefore).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(receiver.received).toHaveLength(1);
  });

  it('sends only the event types and boards it names, and nothing of another organization', async () => {
    feed = new MemoryFeed();
    const dispatcher = instance();
    await endpointFor({ eventTypes: ['slide.*', 'whiteboard.archived'], whiteboardIds: [boards[0]] });
    feed.append(
      { ...boardChange(boards[0], 1), organizationId: globex },
      boardChange(boards[1], 2),
      { ...boardChange(boards[0], 3), type: 'DataStream' },
      { kind: 'ARCHIVED', type: 'Whiteboard', rowId: boards[0], whiteboardId: boards[0], organizationId: acme },
      boardChange(boards[0], 4, 'CREATED'),
      { kind: 'CREATED', type: 'ApiKey', rowId: 9, whiteboardId: null, organizationId: acme },
    );
    dispatcher.wake();
    await receiver.waitFor(2);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(receiver.received.map((each) => each.body.type)).toEqual(['whiteboard.archived', 'slide.created']);
  });

  it("keeps each board's changes in commit order while boards go in parallel, at most WEBHOOK_CONCURRENCY at once over every instance", async () => {
    feed = new MemoryFeed();
    const dispatchers = [instance(), instance(), instance()];
    await endpointFor();
    receiver.answer = () => ({ status: 200, delayMs: 5 + Math.floor(Math.random() * 30) });
    const lanes = boards.slice(0, 3);
    for (let round = 0; round < 15; round++) feed.append(...lanes.map((board) => boardChange(board, round)));
    for (const dispatcher of dispatchers) dispatcher.wake();
    const received = await receiver.waitFor(45, 20_000);
    expect(received.every((each) => each.verified)).toBe(true);
    for (const board of lanes) {
      const cursors = received
        .filter((each) => each.body.data.whiteboardId === board)
        .map((each) => each.body.data.cursor);
      expect(cursors).toEqual([...cursors].sort());
      expect(cursors).toHaveLength(15);
    }
    expect(receiver.maxInFlight).toBe(config.concurrency);
    expect(new Set(received.map((each) => each.messageId)).size).toBe(45);
  });
});

describe('failures', () => {
  it('retries a failed attempt with backoff, and waits as long as a Retry-After asks', async () => {
    feed = new MemoryFeed();
    const dispatcher = instance();
    const endpointId = await endpointFor();
    const answers = [
      { status: 500, body: 'the receiver broke' },
      { status: 503, headers: { 'retry-after': '600' } },
      { status: 200 },
    ];
    receiver.answer = () => answers.shift()!;
    feed.append(boardChange(boards[0], 1));
    dispatcher.wake();
    const [first] = await eventually(
      () => deliveries(endpointId),
      (rows) => rows[0]?.lastStatus === 500,
    );
    expect(first).toMatchObject({ state: 'PENDING', attempts: 1, lastError: 'the receiver broke' });
    const wait = first.nextAttemptAt.getTime() - first.lastAttemptAt!.getTime();
    expect(wait).toBeGreaterThanOrEqual(4_900);
    expect(wait).toBeLessThanOrEqual(10_100);
    await dueNow(endpointId);
    dispatcher.wake();
    const [second] = await eventually(
      () => deliveries(endpointId),
      (rows) => rows[0]?.lastStatus === 503,
    );
    expect(second.nextAttemptAt.getTime() - second.lastAttemptAt!.getTime()).toBeGreaterThanOrEqual(599_000);
    await dueNow(endpointId);
    dispatcher.wake();
    const [third] = await eventually(
      () => deliveries(endpointId),
      (rows) => rows[0]?.state === 'DELIVERED',
    );
    expect(third.attempts).toBe(3);
    expect(new Set(receiver.received.map((each) => each.messageId)).size).toBe(1);
  });

  it('disables an endpoint that answers 410 Gone; enabled again, it gets what waited, in order', async () => {
    feed = new MemoryFeed();
    const dispatcher = instance();
    const endpointId = await endpointFor();
    receiver.answer = () => ({ status: 410 });
    feed.append(boardChange(boards[0], 1));
    dispatcher.wake();
    await eventually(
      () => server.database.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id: endpointId } }),
      (endpoint) => !endpoint.enabled,
    );
    expect(await server.database.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id: endpointId } })).toMatchObject(
      { enabled: false, disabledReason: 'GONE' },
    );
    feed.append(boardChange(boards[0], 2), boardChange(boards[1], 3));
    dispatcher.wake();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(receiver.received).toHaveLength(1);
    receiver.answer = () => ({ status: 204 });
    await dueNow(endpointId);
    const enabled = await rest(server, 'POST', `/api/webhook/v1/endpoints/${endpointId}/enable/`);
    expect(enabled.body).toMatchObject({ enabled: true, disabled_reason: null });
    await receiver.waitFor(4);
    // One board's in order; another board's goes beside it.
    const rowIds = receiver.received.map((each) => each.body.data.rowId);
    expect(rowIds.filter((rowId) => rowId !== 3)).toEqual([1, 1, 2]);
    expect(rowIds).toContain(3);
  });

  it('makes a dead letter after 24 hours of failures, which the board waits for no longer; an administrator lists and redelivers it', async () => {
    feed = new MemoryFeed();
    const dispatcher = instance();
    const endpointId = await endpointFor();
    receiver.answer = () => ({ status: 500 });
    feed.append(boardChange(boards[0], 1));
    dispatcher.wake();
    await eventually(
      () => deliveries(endpointId),
      (rows) => rows[0]?.attempts === 1 && rows[0].lastStatus === 500,
    );
    // Its retries began 25 hours ago: the next failure is its last.
    await server.database.prisma.webhookDelivery.updateMany({
      where: { endpointId },
      data: { retrySince: new Date(Date.now() - 25 * 3_600_000), nextAttemptAt: new Date() },
    });
    feed.append(boardChange(boards[0], 2));
    receiver.answer = (request) => ({ status: request.body.data.rowId === 1 ? 500 : 204 });
    dispatcher.wake();
    await eventually(
      () => deliveries(endpointId),
      (rows) => rows.map((row) => row.state).join() === 'DEAD,DELIVERED',
    );

    const listed = await server.graphql(
      `query($id: Int!) { webhookDeliveries(endpointId: $id, state: DEAD) { totalCount nodes { deliveryId messageId state attempts lastStatus } } }`,
      { id: endpointId },
    );
    expect(listed.data!.webhookDeliveries).toMatchObject({
      totalCount: 1,
      nodes: [{ state: 'DEAD', attempts: 2, lastStatus: 500 }],
    });
    const dead = await rest(server, 'GET', `/api/webhook/v1/endpoints/${endpointId}/deliveries/?state=DEAD`);
    expect(dead.headers.get('x-total-count')).toBe('1');
    expect(dead.body).toEqual([
      expect.objectContaining({ state: 'DEAD', message_id: listed.data!.webhookDeliveries.nodes[0].messageId }),
    ]);

    receiver.answer = () => ({ status: 204 });
    const redelivered = await rest(server, 'POST', `/api/webhook/v1/endpoints/${endpointId}/redeliver/`, { json: {} });
    expect(redelivered).toMatchObject({ status: 200, body: { redelivered_count: 1 } });
    await receiver.waitFor(4);
    expect(receiver.received[3].messageId).toBe(receiver.received[0].messageId);
    const rows = await eventually(
      () => deliveries(endpointId),
      (all) => all.every((row) => row.state === 'DELIVERED'),
    );
    expect(rows.map((row) => [row.messageId, row.attempts])).toEqual([
      [receiver.received[2].messageId, 1],
      [receiver.received[0].messageId, 1],
    ]);
    // A delivered message is sent again on request too, as the same message.
    const again = await server.graphql(
      `mutation($input: RedeliverWebhookDeliveriesInput!) { redeliverWebhookDeliveries(input: $input) { redeliveredCount } }`,
      { input: { rowId: endpointId, deliveryIds: [String(rows[0].id)] } },
    );
    expect(again.data).toEqual({ redeliverWebhookDeliveries: { redeliveredCount: 1 } });
    await receiver.waitFor(5);
    expect(receiver.received[4].messageId).toBe(rows[0].messageId);
  });
});

describe('instances', () => {
  it('leave a delivery whose instance died mid-attempt to another once its lease runs out', async () => {
    feed = new MemoryFeed();
    const endpointId = await endpointFor();
    // A delivery, as the fan-out writes one; no instance runs yet.
    await server.database.prisma.webhookDelivery.create({
      data: { endpointId, messageId: 'msg_died', eventType: 'slide.updated', lane: boards[0], body: '{"died":true}' },
    });
    const engine = server.database.engine;
    const transact = <T>(work: (run: typeof engine.queryRows) => Promise<T>) =>
      server.database.prisma.$transaction((tx) =>
        work(async (sql, args) => (await tx.$queryRawUnsafe<object[]>(sql, ...args)).map((row) => Object.values(row))),
      );
    // Another instance claims it, and dies: no outcome is ever written.
    const [claimed] = await claimDeliveries(engine.queryRows, transact, 2, 10);
    expect(claimed).toMatchObject({ messageId: 'msg_died', attempt: 1 });
    const survivor = instance();
    survivor.wake();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.received.filter((each) => each.messageId === 'msg_died')).toHaveLength(0);
    await server.database.prisma.webhookDelivery.updateMany({
      where: { messageId: 'msg_died' },
      data: { leasedUntil: new Date(Date.now() - 1000) },
    });
    survivor.wake();
    await eventually(
      async () => receiver.received,
      (all) => all.some((each) => each.messageId === 'msg_died'),
    );
    const [row] = await eventually(
      () => deliveries(endpointId),
      (rows) => rows.find((r) => r.messageId === 'msg_died')?.state === 'DELIVERED',
    );
    expect(row.attempts).toBe(2);
  });

  it('stop during a tick: it waits for the tick, which claims nothing more; another instance delivers what it read', async () => {
    feed = new MemoryFeed();
    const endpointId = await endpointFor();
    feed.append(boardChange(boards[0], 1));
    // The tick holds in its read of the changes until released.
    let entered!: () => void;
    const reading = new Promise<void>((resolve) => (entered = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const held: ChangeFeed = {
      head: () => feed.head(),
      read: async (pages, limit) => {
        entered();
        await released;
        return feed.read(pages, limit);
      },
    };
    const started = startWebhooks(config, { feed: held });
    running.push(started);
    await reading;
    let stopped = false;
    const stopping = started.stop().then(() => (stopped = true));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(stopped).toBe(false);
    release();
    await stopping;
    // What the tick read is written for the endpoint, not attempted by the stopped instance.
    const [waiting] = await deliveries(endpointId);
    expect(waiting).toMatchObject({ state: 'PENDING', attempts: 0 });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(receiver.received).toHaveLength(0);
    instance().wake();
    const [received] = await receiver.waitFor(1);
    expect(received.messageId).toBe(waiting.messageId);
  });

  it('deliver every change once between them, none lost, none twice', async () => {
    feed = new MemoryFeed();
    const dispatchers = [instance(), instance()];
    await endpointFor();
    for (let n = 0; n < 200; n++) feed.append(boardChange(boards[n % boards.length], n));
    for (const dispatcher of dispatchers) dispatcher.wake();
    const received = await receiver.waitFor(200, 30_000);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(received).toHaveLength(200);
    expect(new Set(received.map((each) => each.body.data.rowId)).size).toBe(200);
  });
});

describe('retention', () => {
  it('deletes deliveries older than the change log keeps its entries, in bounded batches', async () => {
    feed = new MemoryFeed();
    const endpointId = await endpointFor();
    const { prisma, engine } = server.database;
    const old = new Date(Date.now() - 91 * 24 * 3_600_000);
    for (const createdAt of [old, old, old, new Date()])
      await prisma.webhookDelivery.create({
        data: {
          endpointId,
          messageId: 'msg',
          eventType: 'slide.updated',
          lane: 0,
          body: '{}',
          state: 'DELIVERED',
          createdAt,
        },
      });
    expect(await pruneDeliveries(engine.queryRows, 90, 2)).toBe(2);
    expect(await pruneDeliveries(engine.queryRows, 90, 2)).toBe(1);
    expect(await pruneDeliveries(engine.queryRows, 90, 2)).toBe(0);
    expect(await prisma.webhookDelivery.count({ where: { endpointId } })).toBe(1);
  });
});
