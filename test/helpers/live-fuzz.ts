import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { expect } from 'vitest';
import { hostile } from './arbitraries.js';
import { configureLogging } from '../../src/observability/logger.js';
import { startServer } from './processes.js';
import { scratchDirectory } from './scratch.js';
import { startTestServer } from './server.js';
import { closeCodeOf, frameHeader, RawSocket, upgradedSocket, type ServerMessage } from './websocket.js';

// The fuzz of the live doors, WebSocket and Server-Sent Events, against the gateway: random
// and hostile frames (too large, truncated, of the wrong types, floods of subscribe ids, completes
// of unknown ids, ping storms, frames no client library would send). Nothing may end the process, be
// answered as a fault of the server (5xx, close 1011 or 4500, INTERNAL_SERVER_ERROR), or grow its
// memory without bound. test/live-fuzz.test.ts runs it small in process, test/deep/live-fuzz.test.ts
// large against `npm start`'s server.

const MAX_BODY = 1_048_576;
const DEMO_KEY = 'wbg_live_fuzz_demo_owner_key_0000000000000000000';
const METRICS_TOKEN = 'live-fuzz-metrics';

/** Close codes that say the server failed, not the client. */
const SERVER_FAULTS = new Set([1011, 4500]);
const FAULT_TEXT = /INTERNAL_SERVER_ERROR|Unexpected error\./;

export interface LiveFuzzServer {
  url: string;
  /** An API key of the server's demo data. */
  key: string;
  /** Resident memory now, and its peak since the start, in MiB. */
  memory(): { rss: number; peak: number };
  /** Subscriptions the server holds open. */
  openSubscriptions(): Promise<number>;
  /** Whether the server still runs. */
  alive(): boolean;
  /** What it logged as a bug or a fault (level error and up). */
  faults(): string[];
  stop(): Promise<void>;
}

/**
 * Every scenario comes from one address, eight at a time, and a refused connection keeps its place for
 * the second it is given to read its close: the cap per address would refuse most of them at the
 * upgrade (as it should a real flood), so it is the total's (512) here, and sign-in waits a second.
 */
const fuzzSettings = { WEBSOCKET_UNAUTHENTICATED_PER_ADDRESS: '512', WEBSOCKET_INIT_TIMEOUT_MS: '1000' };

const mib = (status: string, field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)![1]) / 1024;

/** `npm start`'s server on a new embedded data directory, the demo owner's key known. */
export async function startLiveFuzzProcess(): Promise<LiveFuzzServer> {
  const server = startServer({
    DATA_DIR: scratchDirectory('live-fuzz-'),
    PORT: '0',
    DEMO_API_KEY: DEMO_KEY,
    METRICS_TOKEN,
    ...fuzzSettings,
  });
  const url = await server.url;
  const status = () => readFileSync(`/proc/${server.child.pid}/status`, 'utf8');
  return {
    url,
    key: DEMO_KEY,
    memory: () => ({ rss: mib(status(), 'VmRSS'), peak: mib(status(), 'VmHWM') }),
    async openSubscriptions() {
      const text = await (
        await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })
      ).text();
      return Number(/^graphql_subscriptions_open (\d+)/m.exec(text)?.[1] ?? Number.NaN);
    },
    alive: () => server.child.exitCode === null,
    faults: () => server.lines.out.filter((line) => /"level":(50|60)/.test(line)),
    async stop() {
      server.child.kill('SIGTERM');
      await server.exit;
    },
  };
}

/** The gateway in this process over the file's own database, as the other suites run it: quicker to start. */
export async function startLiveFuzzInstance(): Promise<LiveFuzzServer> {
  const written: string[] = [];
  await configureLogging({ level: 'warn', format: 'json' }, { write: (line: string) => void written.push(line) });
  const server = await startTestServer({
    WEBSOCKET_UNAUTHENTICATED_PER_ADDRESS: '64',
    WEBSOCKET_INIT_TIMEOUT_MS: '1000',
  });
  const status = () => readFileSync('/proc/self/status', 'utf8');
  return {
    url: server.url,
    key: server.keys.owner,
    memory: () => ({ rss: mib(status(), 'VmRSS'), peak: mib(status(), 'VmHWM') }),
    openSubscriptions: async () => server.gateway.live.size,
    alive: () => true,
    faults: () => written.filter((line) => /"level":(50|60)/.test(line)),
    stop: () => server.close(),
  };
}

// --- What a hostile WebSocket client sends -----------------------------------------------------

const subscriptionOf = (board: unknown) => ({
  query: 'subscription($id: Int!) { whiteboardEvents(whiteboardId: $id) { ... on LiveEvent { kind rowId } } }',
  variables: { id: board },
});
const deepQuery = (depth: number) => `{ ${'me { activeOrganization { '.repeat(depth)}rowId${' } }'.repeat(depth)} }`;
const aliases = (count: number) => `{ ${Array.from({ length: count }, (_, i) => `a${i}: __typename`).join(' ')} }`;

/** Query texts: real ones, ones the guard refuses, broken ones, random ones. */
const queries: fc.Arbitrary<unknown> = fc.oneof(
  fc.constant(subscriptionOf(1).query),
  fc.constant('{ me { rowId } }'),
  fc.constant('subscription { organizationWhiteboardEvents(organizationId: 1) { __typename } }'),
  fc.integer({ min: 10, max: 400 }).map(deepQuery),
  fc.integer({ min: 50, max: 3_000 }).map(aliases),
  fc.constant('subscription {'),
  fc.constant('{ __schema { types { name } } } { __schema { types { name } } }'),
  fc.string({ maxLength: 200 }),
  hostile,
);

/** Ids: mostly from a small pool, so they repeat (already running, completed, never used). */
const ids: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 5, arbitrary: fc.constantFrom('1', '2', '3', 'a', 'ab') },
  fc.string({ maxLength: 10 }),
  hostile,
);

/** One message of the protocol, valid or not, as an object. */
const messages: fc.Arbitrary<unknown> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      type: fc.constant('subscribe'),
      id: ids,
      payload: fc.oneof(fc.record({ query: queries, variables: fc.oneof(fc.constant({ id: 1 }), hostile) }), hostile),
    }),
  },
  { weight: 2, arbitrary: fc.record({ type: fc.constant('complete'), id: ids }) },
  {
    weight: 2,
    arbitrary: fc.record({ type: fc.constantFrom('ping', 'pong'), payload: fc.oneof(hostile, fc.object()) }),
  },
  fc.record({
    type: fc.oneof(fc.constantFrom('next', 'error', 'connection_ack', 'connection_init'), hostile),
    id: ids,
  }),
  hostile,
);

/** What goes on the wire: a message's JSON, cut short or whole, other text, bytes, or a message past MAX_BODY_BYTES. */
const frames: fc.Arbitrary<string | Uint8Array> = fc.oneof(
  { weight: 6, arbitrary: messages.map((message) => JSON.stringify(message) ?? 'undefined') },
  {
    weight: 2,
    arbitrary: fc.tuple(messages, fc.nat()).map(([message, cut]) => (JSON.stringify(message) ?? '').slice(0, cut % 40)),
  },
  fc.string({ unit: 'binary', maxLength: 100 }),
  fc.uint8Array({ maxLength: 100 }),
  { weight: 1, arbitrary: fc.constant('x'.repeat(MAX_BODY + 1)) },
);

/** Floods: a hundred subscribes of new ids, completes of unknown ones, pings. */
const floods: fc.Arbitrary<(string | Uint8Array)[]> = fc
  .tuple(fc.constantFrom('subscribe', 'complete', 'ping'), fc.integer({ min: 50, max: 200 }))
  .map(([type, count]) =>
    Array.from({ length: count }, (_, i) =>
      JSON.stringify(
        type === 'subscribe'
          ? { type, id: `flood-${i}`, payload: subscriptionOf(1) }
          : type === 'complete'
            ? { type, id: `never-${i}` }
            : { type },
      ),
    ),
  );

/** How a scenario signs in: with `key`, a refused or hostile one, or not at all. */
const signIns = (key: string) =>
  fc.oneof(
    { weight: 4, arbitrary: fc.constant({ type: 'connection_init', payload: { 'X-API-KEY': key } }) },
    fc.record({
      type: fc.constant('connection_init'),
      payload: fc.oneof(hostile, fc.record({ 'X-API-KEY': hostile })),
    }),
    fc.constant(undefined),
  );

export interface WebSocketScenario {
  protocol: string;
  signIn: unknown;
  frames: (string | Uint8Array)[];
}

export const webSocketScenarios = (key: string): fc.Arbitrary<WebSocketScenario> =>
  fc.record({
    protocol: fc.oneof(
      { weight: 9, arbitrary: fc.constant('graphql-transport-ws') },
      fc.constantFrom('graphql-ws', 'x'),
    ),
    signIn: signIns(key),
    frames: fc
      .array(fc.oneof({ weight: 8, arbitrary: frames.map((frame) => [frame]) }, floods), { maxLength: 12 })
      .map((groups) => groups.flat()),
  });

/** What a scenario brought back: every message the server sent and how the socket ended. */
export async function runWebSocketScenario(
  url: string,
  scenario: WebSocketScenario,
): Promise<{ messages: ServerMessage[]; close?: { code: number; reason: string }; refused?: number; sent: number }> {
  const socket = RawSocket.open(url, { protocol: scenario.protocol });
  const refused = await Promise.race([socket.refused, socket.closed.then(() => undefined)]);
  if (refused) return { messages: [], refused, sent: 0 };
  try {
    await socket.opened();
  } catch {
    return { messages: socket.messages, close: await socket.closed, sent: 0 };
  }
  let sent = 0;
  if (scenario.signIn !== undefined) {
    socket.send(JSON.stringify(scenario.signIn));
    await socket.next((message) => message.type === 'connection_ack', 300);
  }
  for (const frame of scenario.frames) {
    if (socket.socket.readyState !== socket.socket.OPEN) break;
    socket.send(typeof frame === 'string' ? frame : Buffer.from(frame));
    sent++;
  }
  const closed = await Promise.race([socket.closed, new Promise<undefined>((resolve) => setTimeout(resolve, 150))]);
  socket.close();
  return { messages: socket.messages, close: closed ?? undefined, sent };
}

/** What no WebSocket answer may be: a close for a fault of the server, or an error that is a bug. */
export function checkWebSocketAnswer(
  scenario: WebSocketScenario,
  answer: Awaited<ReturnType<typeof runWebSocketScenario>>,
): void {
  const where = `${JSON.stringify(scenario).slice(0, 300)} -> ${JSON.stringify(answer).slice(0, 300)}`;
  if (answer.refused !== undefined) expect(answer.refused, where).toBeLessThan(500);
  if (answer.close) expect(SERVER_FAULTS.has(answer.close.code), where).toBe(false);
  expect(FAULT_TEXT.test(JSON.stringify(answer.messages)), where).toBe(false);
}

// --- Frames no client library sends --------------------------------------------------------------

export interface FrameScenario {
  /** Bytes after the upgrade: frame headers with any opcode, bits and claimed length, and payloads cut short. */
  chunks: Uint8Array[];
}

const rawFrames: fc.Arbitrary<Uint8Array> = fc.oneof(
  fc
    .tuple(
      fc.integer({ min: 0, max: 15 }),
      fc.boolean(),
      fc.oneof(fc.nat({ max: 200 }), fc.constantFrom(125, 126, 65_535, 65_536, MAX_BODY + 1, 2 ** 40)),
      fc.uint8Array({ maxLength: 64 }),
    )
    .map(([opcode, fin, length, payload]) => {
      const header = frameHeader(length, opcode, fin);
      return Buffer.concat([header, payload.subarray(0, Math.min(payload.length, length))]);
    }),
  // A frame a client sends without a mask, or with reserved bits set.
  fc.uint8Array({ minLength: 2, maxLength: 40 }).map((bytes) => {
    const copy = Buffer.from(bytes);
    copy[0] = (copy[0] & 0x0f) | 0xf0;
    return copy;
  }),
  fc.uint8Array({ maxLength: 80 }),
);

export const frameScenarios: fc.Arbitrary<FrameScenario> = fc.record({
  chunks: fc.array(rawFrames, { minLength: 1, maxLength: 8 }),
});

/** Sends the bytes on an upgraded connection; the close code the server sent, if any, or the status that refused the upgrade. */
export async function runFrameScenario(url: string, scenario: FrameScenario): Promise<number | string | undefined> {
  let socket: Awaited<ReturnType<typeof upgradedSocket>>;
  try {
    socket = await upgradedSocket(url);
  } catch (error) {
    // Too many connections of this address wait to sign in: a refusal, not a fault.
    return `upgrade ${/HTTP\/1\.1 (\d+)/.exec((error as Error).message)?.[1] ?? (error as Error).message}`;
  }
  const code = closeCodeOf(socket);
  socket.on('error', () => {});
  for (const chunk of scenario.chunks) if (!socket.destroyed) socket.write(chunk);
  const result = await Promise.race([code, new Promise<undefined>((resolve) => setTimeout(resolve, 150))]);
  socket.destroy();
  return result;
}

// --- Server-Sent Events ---------------------------------------------------------------------------

export interface SseScenario {
  headers: Record<string, string>;
  body: string;
  /** Milliseconds before the client goes away; undefined: it reads the first event, or 200 ms. */
  abortAfter: number | undefined;
}

export const sseScenarios = (key: string): fc.Arbitrary<SseScenario> =>
  fc.record({
    headers: fc.record({
      'content-type': fc.oneof(
        { weight: 5, arbitrary: fc.constant('application/json') },
        fc.constantFrom('text/plain', 'application/graphql', 'multipart/form-data; boundary=x'),
      ),
      accept: fc.oneof({ weight: 5, arbitrary: fc.constant('text/event-stream') }, fc.constantFrom('*/*', 'text/html')),
      'x-api-key': fc.oneof({ weight: 4, arbitrary: fc.constant(key) }, fc.constantFrom('', 'wbg_nope')),
    }),
    body: fc.oneof(
      {
        weight: 4,
        arbitrary: fc
          .record({ query: queries, variables: fc.oneof(fc.constant({ id: 1 }), hostile) })
          .map((b) => JSON.stringify(b)),
      },
      fc.string({ maxLength: 100 }),
      fc.constant(
        JSON.stringify({ query: subscriptionOf(1).query, variables: { id: 1 }, padding: 'x'.repeat(MAX_BODY) }),
      ),
      hostile.map((value) => JSON.stringify(value) ?? ''),
    ),
    abortAfter: fc.oneof(fc.constant(undefined), fc.integer({ min: 0, max: 100 })),
  });

/** Sends a scenario; the status and what was read of the stream (empty when the client went away first). */
export async function runSseScenario(url: string, scenario: SseScenario): Promise<{ status: number; text: string }> {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), scenario.abortAfter ?? 200);
  try {
    const response = await fetch(`${url}/graphql`, {
      method: 'POST',
      headers: scenario.headers,
      body: scenario.body,
      signal: abort.signal,
    });
    let text = '';
    try {
      const reader = response.body!.getReader();
      const decoder = new TextDecoder();
      while (!text.includes('\n\n') || text.trim() === ':') {
        const { value, done } = await reader.read();
        if (done) break;
        text += decoder.decode(value, { stream: true });
      }
      await reader.cancel();
    } catch {
      // The client went away mid-stream, as it chose.
    }
    return { status: response.status, text };
  } catch {
    return { status: 0, text: '' };
  } finally {
    clearTimeout(timer);
  }
}

export function checkSseAnswer(scenario: SseScenario, answer: { status: number; text: string }): void {
  const where = `${JSON.stringify(scenario).slice(0, 300)} -> ${answer.status} ${answer.text.slice(0, 300)}`;
  expect(answer.status, where).toBeLessThan(500);
  expect(FAULT_TEXT.test(answer.text), where).toBe(false);
}

/** A batch of scenarios run at once, as clients arrive together; returns how each ended, for the tally. */
export async function runBatch<S, A>(
  scenarios: S[],
  run: (scenario: S) => Promise<A>,
  check: (scenario: S, answer: A) => void,
): Promise<A[]> {
  const answers = await Promise.all(scenarios.map(run));
  for (const [i, scenario] of scenarios.entries()) check(scenario, answers[i]);
  return answers;
}

/** Counts of each outcome, for the log line a run prints. */
export function tally(outcomes: (string | number | undefined)[]): string {
  const counts = new Map<string, number>();
  for (const outcome of outcomes)
    counts.set(String(outcome ?? 'open'), (counts.get(String(outcome ?? 'open')) ?? 0) + 1);
  return [...counts]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([outcome, count]) => `${outcome}: ${count}`)
    .join(', ');
}
