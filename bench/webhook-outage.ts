import { setTimeout as sleep } from 'node:timers/promises';
import { openDatabase } from '../src/db/index.js';
import { seedDemo } from '../src/db/seed/index.js';
import { createPrivateCluster } from '../test/helpers/private-postgres.js';
import { startGateway } from '../test/helpers/processes.js';
import { Receiver, webhookEnv } from '../test/helpers/webhooks.js';
import { onCleanup } from './cleanup.js';

// An endpoint that is down (answering 503) for a while under a steady stream of board changes, then
// back: every change must reach it after it comes back, each board's in the log's order.

const rename = `mutation($id: Int!, $name: String!) { updateWhiteboard(input: { rowId: $id, name: $name }) { whiteboard { rowId } } }`;
const create = `mutation($input: CreateWebhookEndpointInput!) { createWebhookEndpoint(input: $input) { secret } }`;

export interface OutageOptions {
  downMs: number;
  /** Changes a second, spread over `boards` boards. */
  rate: number;
  boards: number;
  env: Record<string, string>;
}

export interface OutageReport {
  changes: number;
  delivered: number;
  /** Requests the endpoint took in all (the refused attempts and the retries included). */
  requests: number;
  /** From the endpoint's return to the last change's first delivery. */
  caughtUpMs: number;
  /** Boards whose changes came out of the log's order. */
  outOfOrder: number[];
}

/** The log's entry id in a webhook's cursor (identity:xid:id, base64url). */
const entryOf = (cursor: string) => Number(Buffer.from(cursor, 'base64url').toString().split(':')[2]);

export async function runWebhookOutage(options: OutageOptions): Promise<OutageReport> {
  const cluster = await createPrivateCluster();
  onCleanup('the PostgreSQL server', () => cluster.remove());
  await cluster.start();
  const url = cluster.url.replace(/\/postgres$/, '/gateway');
  const database = await openDatabase({ databaseUrl: url, poolSize: 2 });
  const keys = await seedDemo(database.prisma);
  const boards = (
    await database.prisma.whiteboard.findMany({ where: { organizationId: 1 }, take: options.boards })
  ).map((board) => board.id);
  const gateway = await startGateway({ ...options.env, ...webhookEnv, DATABASE_URL: url, LOG_LEVEL: 'error' }, keys);
  onCleanup('the gateway', async () => void (await gateway.stop()));
  const receiver = await Receiver.start();
  onCleanup('the receiver', () => receiver.close());
  const input = { organizationId: 1, url: receiver.url, eventTypes: ['whiteboard.updated'] };
  receiver.secret = (await gateway.graphql(create, { input })).data!.createWebhookEndpoint.secret;

  let down = true;
  receiver.answer = () => (down ? { status: 503 } : { status: 204 });
  let changes = 0;
  const until = Date.now() + options.downMs;
  while (Date.now() < until) {
    const board = boards[changes % boards.length];
    const answer = await gateway.graphql(rename, { id: board, name: `Outage ${changes}` });
    if (answer.errors) throw new Error(`a rename failed: ${JSON.stringify(answer.errors)}`);
    changes++;
    await sleep(1000 / options.rate);
  }
  down = false;
  const back = Date.now();
  const firsts = new Map<string, { at: number; board: number; entry: number }>();
  // The backoff's step when the endpoint returns is at most the outage's length: one more step, and some.
  const deadline = back + Math.max(options.downMs, 60_000) + 60_000;
  while (Date.now() < deadline) {
    for (const request of receiver.received)
      if (request.verified && !firsts.has(request.messageId) && request.at >= back)
        firsts.set(request.messageId, {
          at: request.at,
          board: request.body.data.whiteboardId,
          entry: entryOf(request.body.data.cursor),
        });
    if (firsts.size >= changes) break;
    await sleep(500);
  }
  const outOfOrder = boards.filter((board) => {
    const entries = [...firsts.values()].filter((first) => first.board === board).map((first) => first.entry);
    return entries.some((entry, i) => i > 0 && entry < entries[i - 1]);
  });
  await database.close();
  return {
    changes,
    delivered: firsts.size,
    requests: receiver.received.length,
    caughtUpMs: Math.max(...[...firsts.values()].map((first) => first.at)) - back,
    outOfOrder,
  };
}
