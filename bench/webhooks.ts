import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { TEST_ENCRYPTION_KEY } from '../test/helpers/webhooks.js';
import { createApiKey } from '../src/auth/api-keys.js';
import { openDatabase } from '../src/db/index.js';
import { ownerOf, rowsOf, size } from './dataset.js';
import type { KeyRing } from './keys.js';
import { percentile } from './live.js';
import { startScript, startServer } from './servers.js';

/** How the webhook case runs; BENCHMARKS.md lists the variables. */
export interface WebhookSettings {
  /** Endpoints, one per organization (at most the data set's 20). @default 20 */
  endpoints: number;
  /** Board renames per second, the organizations in turn. @default 100 */
  rate: number;
  seconds: number;
  warmup: number;
}

export interface WebhookResult {
  settings: WebhookSettings;
  /** Renames measured, and those whose first delivery attempt came. */
  changes: number;
  delivered: number;
  /** From a rename's answer (it commits before answering) to the first attempt of its delivery, ms. */
  latency: { p50: number; p99: number; max: number };
}

const rename = `mutation($rowId: Int!, $name: String!) { updateWhiteboard(input: { rowId: $rowId, name: $name }) { whiteboard { rowId } } }`;
const create = `mutation($input: CreateWebhookEndpointInput!) { createWebhookEndpoint(input: $input) { secret } }`;
const DRAIN_MS = 5_000;
/** Boards renamed per organization, in turn: each renamed at most once a second at 100 renames a second. */
const BOARDS_PER_ORGANIZATION = 10;

const now = () => performance.timeOrigin + performance.now();

/** One receiver on loopback for every endpoint (a path each); calls `onAttempt` with each request's board and when it came. */
async function receiver(onAttempt: (board: number, at: number) => void): Promise<Server & { url: string }> {
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const at = now();
      onAttempt(JSON.parse(Buffer.concat(chunks).toString('utf8')).data.whiteboardId, at);
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return Object.assign(server, { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
}

/**
 * The webhook case: a gateway of its own with webhooks on, one endpoint per organization, renames
 * at a steady rate over the organizations' boards; each change's first delivery attempt is matched to
 * its rename by board and order (a board's changes reach its endpoint in commit order).
 */
export async function measureWebhooks(
  databaseUrl: string,
  env: Record<string, string>,
  keys: KeyRing,
  settings: WebhookSettings,
): Promise<WebhookResult> {
  const attempts = new Map<number, number[]>();
  const hooks = await receiver((board, at) => attempts.set(board, [...(attempts.get(board) ?? []), at]));
  const gateway = await startServer({
    name: 'gateway with webhooks',
    command: ['sh', '-c', startScript()],
    env: {
      ...env,
      DATABASE_URL: databaseUrl,
      NODE_ENV: 'production',
      WEBHOOK_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
      WEBHOOK_ALLOW_PRIVATE: 'true',
    },
    readyPath: '/ready',
  });
  try {
    const url = new URL('/graphql', gateway.url);
    const send = async (headers: Record<string, string>, query: string, variables: object) => {
      const response = await fetch(url, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({ query, variables }),
      });
      const result = (await response.json()) as { errors?: { message: string }[] };
      if (result.errors) throw new Error(`the webhook case: ${result.errors[0].message}`);
    };
    const organizations = Math.min(settings.endpoints, size.organizations);
    // Endpoints are an administrator's: a key of that permission for each owner, for this alone.
    const admin = await openDatabase({ databaseUrl, poolSize: 2 });
    try {
      for (let org = 1; org <= organizations; org++) {
        const { secret } = await createApiKey(admin.prisma, {
          userId: ownerOf(org),
          name: 'bench webhooks',
          permission: 'ADMIN',
        });
        const input = { organizationId: org, url: `${hooks.url}/hook/${org}`, eventTypes: ['whiteboard.updated'] };
        await send({ 'x-api-key': secret }, create, { input });
      }
    } finally {
      await admin.close();
    }
    const boards = Array.from({ length: organizations * BOARDS_PER_ORGANIZATION }, (_, j) => ({
      key: j % organizations,
      rowId: rowsOf((j % organizations) + 1, size.whiteboards)[Math.floor(j / organizations)],
    }));
    const answered = new Map<number, number[]>();
    let turn = 0;
    const renameAtRate = async (seconds: number) => {
      const writes: Promise<void>[] = [];
      const start = now();
      for (let i = 0; i < Math.round(settings.rate * seconds); i++) {
        await sleep(start + (i * 1000) / settings.rate - now());
        const board = boards[turn++ % boards.length];
        writes.push(
          send(keys.headers(board.key), rename, { rowId: board.rowId, name: `hook ${i}` }).then(() => {
            answered.set(board.rowId, [...(answered.get(board.rowId) ?? []), now()]);
          }),
        );
      }
      await Promise.all(writes);
    };
    // Unmeasured: a cold gateway compiles its plans and code on the first renames.
    await renameAtRate(settings.warmup);
    const warm = new Map([...answered].map(([board, times]) => [board, times.length]));
    await renameAtRate(settings.seconds);
    const changes = [...answered.values()].reduce((sum, times) => sum + times.length, 0);
    const delivered = () => [...attempts.values()].reduce((sum, times) => sum + times.length, 0);
    for (const deadline = now() + DRAIN_MS; delivered() < changes && now() < deadline; ) await sleep(50);
    const latencies = [...answered].flatMap(([board, times]) =>
      times.slice(warm.get(board) ?? 0).flatMap((at, n) => {
        const attempt = attempts.get(board)?.[(warm.get(board) ?? 0) + n];
        return attempt === undefined ? [] : [attempt - at];
      }),
    );
    latencies.sort((x, y) => x - y);
    return {
      settings,
      changes: changes - [...warm.values()].reduce((sum, n) => sum + n, 0),
      delivered: latencies.length,
      latency: { p50: percentile(latencies, 50), p99: percentile(latencies, 99), max: latencies.at(-1) ?? NaN },
    };
  } finally {
    await gateway.stop();
    hooks.close();
  }
}
