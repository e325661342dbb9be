import { readFileSync } from 'node:fs';
import { getIntrospectionQuery } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIGN_IN_BYTES, UNREAD_BYTES } from '../src/http/websocket-door.js';
import { OPERATIONS_PER_SOCKET } from '../src/http/websocket.js';
import { until } from './helpers/live.js';
import { startServer } from './helpers/processes.js';
import { scratchDirectory } from './helpers/scratch.js';
import { startInstance, startTestServer, type TestServer } from './helpers/server.js';
import { closeCodeOf, frameHeader, pour, RawSocket, upgradedSocket } from './helpers/websocket.js';

// The WebSocket door, frame by frame as a hostile client sends them: every frame is bounded before
// it is read and before its sender is known, and nothing a client sends is a fault of the server.

let server: TestServer;
let board: number;
const subscription = 'subscription($id: Int!) { whiteboardEvents(whiteboardId: $id) { ... on LiveEvent { kind } } }';

beforeAll(async () => {
  server = await startTestServer({ LIVE_POLL_MS: '60000' });
  board = (await server.graphql('{ whiteboards(first: 1) { edges { node { rowId } } } }')).data!.whiteboards.edges[0]
    .node.rowId;
});
afterAll(() => server?.close());

describe('before sign-in', () => {
  it('closes with 1009 a frame that claims more than MAX_BODY_BYTES, from its header, without reading it', async () => {
    const socket = await upgradedSocket(server.url);
    const code = closeCodeOf(socket);
    socket.write(frameHeader(100 * 1024 * 1024));
    expect(await code).toBe(1009);
    socket.destroy();
  });

  it(`closes with 1009 a client that sends more than ${SIGN_IN_BYTES} bytes before signing in, in frames of any size`, async () => {
    const [large, many] = [RawSocket.open(server.url), RawSocket.open(server.url)];
    await Promise.all([large.opened(), many.opened()]);
    large.send({ type: 'connection_init', payload: { 'X-API-KEY': 'k'.repeat(SIGN_IN_BYTES) } });
    // Pings are answered before sign-in, but count as well.
    for (let i = 0; i < 40; i++) many.send({ type: 'ping', payload: { padding: 'p'.repeat(SIGN_IN_BYTES / 32) } });
    expect(await Promise.all([large.closed, many.closed])).toMatchObject([{ code: 1009 }, { code: 1009 }]);
    expect(many.messages.length).toBeLessThan(40);
  });

  it('closes with 4408 a connection that does not sign in within WEBSOCKET_INIT_TIMEOUT_MS', async () => {
    const quick = await startInstance({ WEBSOCKET_INIT_TIMEOUT_MS: '300' });
    try {
      const socket = RawSocket.open(quick.url);
      await socket.opened();
      const opened = Date.now();
      socket.send({ type: 'ping' });
      expect(await socket.closed).toEqual({ code: 4408, reason: 'Connection initialisation timeout' });
      expect(Date.now() - opened).toBeLessThan(1_500);
    } finally {
      await quick.close();
    }
  });

  it('refuses the upgrade with 429 past WEBSOCKET_UNAUTHENTICATED_PER_ADDRESS waiting sockets, and takes another once one signs in', async () => {
    const capped = await startInstance({ WEBSOCKET_UNAUTHENTICATED_PER_ADDRESS: '3' });
    try {
      const waiting = [RawSocket.open(capped.url), RawSocket.open(capped.url), RawSocket.open(capped.url)];
      await Promise.all(waiting.map((socket) => socket.opened()));
      const refused = RawSocket.open(capped.url);
      expect(await refused.refused).toBe(429);
      waiting[0].send({ type: 'connection_init', payload: { 'X-API-KEY': server.keys.viewer } });
      expect(await waiting[0].next((message) => message.type === 'connection_ack')).toBeDefined();
      const next = RawSocket.open(capped.url);
      await next.opened();
      for (const socket of [...waiting, next]) socket.close();
    } finally {
      await capped.close();
    }
  });

  it('closes with 4401 an operation sent before signing in, and with 4429 a second connection_init', async () => {
    const early = RawSocket.open(server.url);
    await early.opened();
    early.send({ type: 'subscribe', id: '1', payload: { query: '{ me { rowId } }' } });
    expect((await early.closed).code).toBe(4401);
    const twice = RawSocket.open(server.url);
    await twice.opened();
    twice.send({ type: 'connection_init', payload: { 'X-API-KEY': server.keys.viewer } });
    twice.send({ type: 'connection_init', payload: { 'X-API-KEY': server.keys.viewer } });
    expect((await twice.closed).code).toBe(4429);
  });
});

describe('after sign-in', () => {
  it('closes with 1009 a message past MAX_BODY_BYTES, and runs one within it', async () => {
    const socket = await RawSocket.signedIn(server.url, server.keys.viewer);
    const padding = 'x'.repeat(1_000_000);
    const within = await socket.first('1', `{ me { rowId } } # ${padding}`);
    expect(within?.payload.data.me.rowId).toEqual(expect.any(Number));
    socket.send({
      type: 'subscribe',
      id: '2',
      payload: { query: '{ me { rowId } }', variables: { p: `${padding}${padding}` } },
    });
    expect((await socket.closed).code).toBe(1009);
    expect(socket.messages.filter((message) => message.id === '2')).toEqual([]);
  });

  it('answers a bad request with 4400 and nothing in the log, never 4500: not JSON, binary, a type a client does not send', async () => {
    for (const message of [
      'not json',
      Buffer.from([0, 1, 2, 255]),
      '[]',
      '{"type":7}',
      '{"type":"next","id":"1","payload":{}}',
      '{"type":"connection_ack"}',
      '{"type":"error","id":"1","payload":[{"message":"x"}]}',
      '{"type":"subscribe","id":"1","payload":{"query":7}}',
    ]) {
      const socket = await RawSocket.signedIn(server.url, server.keys.viewer);
      socket.send(message);
      expect((await socket.closed).code, String(message)).toBe(4400);
    }
  });

  it('answers an operation that does not parse, or is refused, with an error for its id, and keeps the socket', async () => {
    const socket = await RawSocket.signedIn(server.url, server.keys.viewer);
    expect(await socket.first('1', 'subscription {')).toMatchObject({
      type: 'error',
      payload: [{ extensions: { code: 'GRAPHQL_PARSE_FAILED' } }],
    });
    expect(await socket.first('2', '{ nope }')).toMatchObject({
      type: 'error',
      payload: [{ extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } }],
    });
    // A complete for an id never used changes nothing; a ping is answered without its payload.
    socket.send({ type: 'complete', id: 'never' });
    socket.send({ type: 'ping', payload: { echo: 'x'.repeat(10_000) } });
    expect(await socket.next((message) => message.type === 'pong')).toEqual({ type: 'pong' });
    expect((await socket.first('3', '{ me { rowId } }'))?.payload.data.me.rowId).toEqual(expect.any(Number));
    socket.send({ type: 'subscribe', id: '3', payload: { query: subscription, variables: { id: board } } });
    socket.send({ type: 'subscribe', id: '3', payload: { query: subscription, variables: { id: board } } });
    expect((await socket.closed).code).toBe(4409);
  });

  it(`refuses an operation past ${OPERATIONS_PER_SOCKET} running on one socket with TOO_MANY_OPERATIONS`, async () => {
    const many = await startInstance({ MAX_SUBSCRIPTIONS_PER_KEY: String(OPERATIONS_PER_SOCKET + 10) });
    try {
      const socket = await RawSocket.signedIn(many.url, server.keys.admin);
      // In groups, so that the test database's small pool serves them without a queue.
      for (let i = 0; i < OPERATIONS_PER_SOCKET; i++) {
        socket.send({ type: 'subscribe', id: `s${i}`, payload: { query: subscription, variables: { id: board } } });
        if (i % 16 === 15) await until(() => many.gateway.live.size === i + 1, 5_000);
      }
      expect(await socket.first('over', subscription, { id: board })).toMatchObject({
        type: 'error',
        payload: [{ extensions: { code: 'TOO_MANY_OPERATIONS' } }],
      });
      socket.send({ type: 'complete', id: 's0' });
      await until(() => many.gateway.live.size === OPERATIONS_PER_SOCKET - 1);
      socket.send({ type: 'subscribe', id: 'again', payload: { query: subscription, variables: { id: board } } });
      await until(() => many.gateway.live.size === OPERATIONS_PER_SOCKET);
      socket.close();
      await until(() => many.gateway.live.size === 0);
    } finally {
      await many.close();
    }
  });

  it('closes a socket past MAX_SUBSCRIPTIONS_PER_KEY sockets of one key with 4403', async () => {
    const few = await startInstance({ MAX_SUBSCRIPTIONS_PER_KEY: '2' });
    try {
      const open = [
        await RawSocket.signedIn(few.url, server.keys.member),
        await RawSocket.signedIn(few.url, server.keys.member),
      ];
      const third = RawSocket.open(few.url);
      await third.opened();
      third.send({ type: 'connection_init', payload: { 'X-API-KEY': server.keys.member } });
      expect(await third.closed).toEqual({
        code: 4403,
        reason: 'Forbidden: this key holds 2 open WebSockets, the most it may; close one first',
      });
      open[0].close();
      await new Promise((resolve) => setTimeout(resolve, 100));
      const again = await RawSocket.signedIn(few.url, server.keys.member);
      for (const socket of [open[1], again]) socket.close();
    } finally {
      await few.close();
    }
  });

  it('cuts off a client that leaves its answers unread', async () => {
    const socket = await RawSocket.signedIn(server.url, server.keys.viewer);
    const query = getIntrospectionQuery({ descriptions: true });
    const answer = JSON.stringify(await server.graphql(query)).length;
    // More answers than UNREAD_BYTES and the kernel's buffers hold, as many as may run at once; the client reads none.
    const connection = (socket.socket as unknown as { _socket: { pause(): void; resume(): void } })._socket;
    connection.pause();
    expect(answer * OPERATIONS_PER_SOCKET).toBeGreaterThan(UNREAD_BYTES * 1.5);
    for (let i = 0; i < OPERATIONS_PER_SOCKET; i++) socket.send({ type: 'subscribe', id: `q${i}`, payload: { query } });
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    // A paused connection learns of its end when it reads again: by then the server had cut it, midway.
    connection.resume();
    expect((await socket.closed).code).toBe(1006);
    expect(socket.messages.length).toBeLessThan(OPERATIONS_PER_SOCKET);
  });
});

describe('the production server under a flood before sign-in', () => {
  it('answers /ready throughout 20 messages of 100 MiB sent in parallel, each closed with 1009 as its header arrives', async () => {
    const started = startServer({
      DATA_DIR: scratchDirectory('websocket-flood-'),
      PORT: '0',
      WEBSOCKET_UNAUTHENTICATED_PER_ADDRESS: '20',
    });
    try {
      const url = await started.url;
      const status = () => readFileSync(`/proc/${started.child.pid}/status`, 'utf8');
      const mib = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status())![1]) / 1024;
      const before = mib('VmRSS');
      let peak = before;
      let ready = 0;
      let failures = 0;
      let slowest = 0;
      let polling = true;
      const poll = (async () => {
        while (polling) {
          const asked = performance.now();
          const answer = await fetch(`${url}/ready`, { signal: AbortSignal.timeout(2_000) }).catch(() => undefined);
          slowest = Math.max(slowest, performance.now() - asked);
          if (answer?.status === 200) ready++;
          else failures++;
          peak = Math.max(peak, mib('VmRSS'));
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      })();
      const flood = await Promise.all(
        Array.from({ length: 20 }, async () => {
          const socket = await upgradedSocket(url);
          const code = closeCodeOf(socket);
          socket.write(frameHeader(100 * 1024 * 1024));
          const written = await pour(socket, 100 * 1024 * 1024);
          socket.destroy();
          return { code: await code, written };
        }),
      );
      polling = false;
      await poll;
      const written = Math.round(flood.reduce((sum, each) => sum + each.written, 0) / 2 ** 20);
      console.log(
        `WebSocket flood, 20 messages of 100 MiB before sign-in: the clients wrote ${written} MiB before the server cut them; ` +
          `server RSS ${Math.round(before)} MiB before, at most ${Math.round(peak)} MiB during (its peak since start ${Math.round(mib('VmHWM'))} MiB); ` +
          `/ready answered ${ready} times, the slowest in ${Math.round(slowest)} ms, failed ${failures}`,
      );
      expect(flood.map(({ code }) => code)).toEqual(Array(20).fill(1009));
      expect(failures).toBe(0);
      expect(ready).toBeGreaterThan(0);
      expect(peak - before).toBeLessThan(64);
      expect(started.child.exitCode).toBeNull();
      expect((await fetch(`${url}/ready`)).status).toBe(200);
    } finally {
      started.child.kill('SIGTERM');
      await started.exit;
    }
  }, 60_000);
});
