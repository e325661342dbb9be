import { afterAll, beforeAll, expect, it } from 'vitest';
import { openDatabase, type Database } from '../src/db/index.js';
import { seedDemo } from '../src/db/seed/index.js';
import { configureLogging } from '../src/observability/logger.js';
import { SecretBox } from '../src/webhooks/secret-box.js';
import { newSigningSecret } from '../src/webhooks/signature.js';
import { createPrivateCluster, type PrivateCluster } from './helpers/private-postgres.js';
import { startInstance } from './helpers/server.js';
import { Receiver, TEST_ENCRYPTION_KEY, webhookEnv } from './helpers/webhooks.js';

// A real PostgreSQL stopped and started under an instance that delivers webhooks: the dispatcher
// goes on once the database is back, with nothing lost, and the outage is logged once, not at every tick.

const written: string[] = [];
const lines = () => written.map((line) => JSON.parse(line) as { level: number; msg: string });

let cluster: PrivateCluster;
let database: Database;
let instance: Awaited<ReturnType<typeof startInstance>>;
let receiver: Receiver;
let endpointId: number;

beforeAll(async () => {
  await configureLogging({ level: 'info', format: 'json' }, { write: (line: string) => void written.push(line) });
  cluster = await createPrivateCluster();
  await cluster.start();
  database = await openDatabase({ databaseUrl: cluster.url, poolSize: 4 });
  await seedDemo(database.prisma);
  receiver = await Receiver.start();
  receiver.secret = newSigningSecret();
  const organization = await database.prisma.organization.findFirstOrThrow();
  endpointId = (
    await database.prisma.webhookEndpoint.create({
      data: {
        organizationId: organization.id,
        url: receiver.url,
        eventTypes: ['*'],
        secret: new SecretBox([Buffer.from(TEST_ENCRYPTION_KEY, 'base64')]).seal(receiver.secret, organization.id),
      },
    })
  ).id;
  instance = await startInstance(webhookEnv);
});
afterAll(async () => {
  await instance?.close();
  await receiver?.close();
  await database?.close();
  await cluster?.remove();
});

const deliver = (messageId: string, dueInMs = 0) =>
  database.prisma.webhookDelivery.create({
    data: {
      endpointId,
      messageId,
      eventType: 'whiteboard.updated',
      lane: 0,
      body: '{}',
      nextAttemptAt: new Date(Date.now() + dueInMs),
    },
  });

it('delivers what was due during an outage once the database is back, and logs the outage once', async () => {
  await deliver('msg_before');
  await receiver.waitFor(1);
  // Due while the database is away.
  await deliver('msg_during', 500);
  const before = written.length;
  await cluster.stop();
  await new Promise((resolve) => setTimeout(resolve, 3_000));
  const during = lines().slice(before);
  expect(during.filter((line) => line.level >= 50).map((line) => line.msg)).toEqual([
    'the database cannot be reached: requests that need it are answered 503',
  ]);
  expect(receiver.received.map((each) => each.messageId)).toEqual(['msg_before']);
  await cluster.start();
  await receiver.waitFor(2, 15_000);
  expect(receiver.received.map((each) => [each.messageId, each.verified])).toEqual([
    ['msg_before', true],
    ['msg_during', true],
  ]);
  await expect
    .poll(() => lines().some((line) => line.msg === 'the database answers again'), { timeout: 5_000 })
    .toBe(true);
  await expect
    .poll(async () => (await database.prisma.webhookDelivery.findFirst({ where: { messageId: 'msg_during' } }))?.state)
    .toBe('DELIVERED');
});

it('lets its attempts in flight end, their outcomes written, when the instance stops', async () => {
  receiver.answer = () => ({ status: 200, delayMs: 500 });
  await deliver('msg_at_stop');
  await receiver.waitFor(3);
  await instance.close();
  const row = await database.prisma.webhookDelivery.findFirstOrThrow({ where: { messageId: 'msg_at_stop' } });
  expect([row.state, row.lastStatus]).toEqual(['DELIVERED', 200]);
});
