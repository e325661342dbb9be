import { Agent, request, type ClientRequest } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { rowsOf, size } from './dataset.js';
import type { KeyRing } from './keys.js';
import type { ChildServer } from './servers.js';

/** How the live case runs; BENCHMARKS.md lists the variables. */
export interface LiveSettings {
  /** Server-Sent Events subscriptions held open at once. @default 500 */
  subscribers: number;
  /** Subscribers of each board. @default 10 */
  perBoard: number;
  /** Board renames per second while the subscriptions stand. @default 20 */
  rate: number;
  /** Seconds of renames measured, after `warmup` seconds of renames unmeasured. */
  seconds: number;
  warmup: number;
}

export interface LiveResult {
  settings: LiveSettings;
  boards: number;
  /** Subscriptions that were refused or ended early. */
  refused: number;
  /** Events due, warm-up included: each rename once to every subscriber of its board. */
  expected: number;
  delivered: number;
  /**
   * From a rename's answer (after its commit) to the first event that shows its name at a subscriber,
   * ms; negative when the event came first.
   */
  latency: { p50: number; p99: number; max: number };
  /** From the moment the rename was sent, its own time included: an upper bound, ms. */
  sinceSent: { p50: number; p99: number };
  /** The renames' own response times, ms. */
  mutation: { p50: number; p99: number };
  /** The gateway's resident memory before the subscriptions opened, and its peak during the case, bytes. */
  rss: { before: number; peak: number };
}

const subscription = `subscription($id: Int!) { whiteboardEvents(whiteboardId: $id) { ... on NodeChangedEvent { node { ... on Whiteboard { name } } } } }`;
const rename = `mutation($rowId: Int!, $name: String!) { updateWhiteboard(input: { rowId: $rowId, name: $name }) { whiteboard { rowId } } }`;
const DRAIN_MS = 3_000;

const now = () => performance.timeOrigin + performance.now();

export function percentile(sorted: number[], p: number): number {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] : NaN;
}

/** Board j of the case: spread over the organizations in turn, with the key of its organization's owner. */
function boardOf(j: number): { rowId: number; key: number } {
  const organizations = size.organizations;
  const org = (j % organizations) + 1;
  return { rowId: rowsOf(org, size.whiteboards)[Math.floor(j / organizations)], key: org - 1 };
}

/**
 * One SSE subscription over a socket of `agent`; calls `onName` with the board name each event carries.
 * Resolves once the gateway answered (it answers after the subscription stands).
 */
function subscribe(
  url: URL,
  agent: Agent,
  headers: Record<string, string>,
  rowId: number,
  onName: (name: string) => void,
  onEnd: () => void,
): Promise<ClientRequest> {
  let ended = false;
  const endOnce = () => ended || ((ended = true), onEnd());
  return new Promise((resolve, reject) => {
    const body = JSON.stringify({ query: subscription, variables: { id: rowId } });
    const req = request(url, {
      method: 'POST',
      agent,
      headers: {
        ...headers,
        'content-type': 'application/json',
        accept: 'text/event-stream',
        'content-length': Buffer.byteLength(body),
      },
    });
    req.on('error', reject);
    req.on('response', (res) => {
      if (res.statusCode !== 200) {
        let answer = '';
        res.on('data', (chunk) => (answer += chunk));
        res.on('end', () => reject(new Error(`subscription answered ${res.statusCode}: ${answer.slice(0, 500)}`)));
        return;
      }
      res.setEncoding('utf8');
      let buffer = '';
      res.on('data', (chunk: string) => {
        buffer += chunk;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const message = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const data = /^data: ?(.*)$/m.exec(message)?.[1];
          if (!data || !message.startsWith('event: next')) continue;
          const name = JSON.parse(data).data?.whiteboardEvents?.node?.name;
          if (typeof name === 'string') onName(name);
          else endOnce();
        }
      });
      res.on('end', endOnce);
      // The bench cuts every stream at the end.
      res.on('error', () => {});
      resolve(req);
    });
    req.end(body);
  });
}

/**
 * The live case: `subscribers` SSE subscriptions to whiteboardEvents on one gateway while board
 * renames run at a steady rate. Each rename's name carries the time it was sent, so every
 * subscriber measures its own delivery latency on the bench's clock.
 */
export async function measureLive(gateway: ChildServer, keys: KeyRing, settings: LiveSettings): Promise<LiveResult> {
  const url = new URL('/graphql', gateway.url);
  const boards = Math.ceil(settings.subscribers / settings.perBoard);
  gateway.resetPeak();
  const before = gateway.windowPeakRss();
  // One socket per subscription, kept for its whole life; none queued behind another.
  const agent = new Agent({ keepAlive: true, maxSockets: Infinity });
  // First arrivals of each measured name at each subscriber, by the send time the name carries.
  const arrivals: { sentAt: number; at: number }[] = [];
  let delivered = 0;
  const answeredAt = new Map<number, number>();
  let refused = 0;
  let closing = false;
  const requests = await Promise.all(
    Array.from({ length: settings.subscribers }, (_, s) => {
      const board = boardOf(Math.floor(s / settings.perBoard));
      // The node is read at delivery: under load, an event may already show a later rename's name, and that rename's own event shows it again.
      const seen = new Set<string>();
      const onName = (name: string) => {
        delivered++;
        if (!name.startsWith('live ') || seen.has(name)) return;
        seen.add(name);
        arrivals.push({ sentAt: Number(name.split(' ')[1]), at: now() });
      };
      return subscribe(url, agent, keys.headers(board.key), board.rowId, onName, () => closing || refused++);
    }),
  );

  let turn = 0;
  /** Renames at the steady rate for `seconds`, the boards in turn; answers the renames' response times. */
  const renameAtRate = async (seconds: number, prefix: string): Promise<number[]> => {
    const writes: Promise<number>[] = [];
    const start = now();
    for (let i = 0; i < Math.round(settings.rate * seconds); i++) {
      await sleep(start + (i * 1000) / settings.rate - now());
      const board = boardOf(turn++ % boards);
      // Rounded as the name carries it, so that arrivals find their answer.
      const sentAt = Number(now().toFixed(3));
      const body = JSON.stringify({ query: rename, variables: { rowId: board.rowId, name: `${prefix} ${sentAt}` } });
      writes.push(
        fetch(url, {
          method: 'POST',
          headers: { ...keys.headers(board.key), 'content-type': 'application/json' },
          body,
        }).then(async (response) => {
          const result = (await response.json()) as { errors?: { message: string }[] };
          if (result.errors) throw new Error(`a rename failed: ${result.errors[0].message}`);
          answeredAt.set(sentAt, now());
          return now() - sentAt;
        }),
      );
    }
    return Promise.all(writes);
  };
  // Unmeasured: a cold gateway compiles its plans and code on the first renames.
  await renameAtRate(settings.warmup, 'warm');
  const mutationTimes = (await renameAtRate(settings.seconds, 'live')).sort((x, y) => x - y);
  const subscribersOf = (j: number) => Math.min(settings.perBoard, settings.subscribers - j * settings.perBoard);
  const expected = Array.from({ length: turn }, (_, i) => subscribersOf(i % boards)).reduce((sum, n) => sum + n, 0);
  for (const deadline = now() + DRAIN_MS; delivered < expected && now() < deadline; ) await sleep(50);
  const peak = gateway.windowPeakRss();
  closing = true;
  for (const req of requests) req.destroy();
  agent.destroy();

  const sorted = arrivals.map(({ sentAt, at }) => at - answeredAt.get(sentAt)!).sort((x, y) => x - y);
  const sinceSent = arrivals.map(({ sentAt, at }) => at - sentAt).sort((x, y) => x - y);
  return {
    settings,
    boards,
    refused,
    expected,
    delivered,
    latency: { p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted.at(-1) ?? NaN },
    sinceSent: { p50: percentile(sinceSent, 50), p99: percentile(sinceSent, 99) },
    mutation: { p50: percentile(mutationTimes, 50), p99: percentile(mutationTimes, 99) },
    rss: { before, peak },
  };
}
