import { randomBytes } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import WebSocket from 'ws';

/** A message the server sent, parsed (graphql-transport-ws: `type`, `id`, `payload`). */
export interface ServerMessage {
  type: string;
  id?: string;
  payload?: any;
}

/**
 * A WebSocket to the gateway's /graphql spoken to frame by frame, as a hostile client would: what it
 * sends is not checked, every message the server sends is kept, and the close code and reason are read.
 */
export class RawSocket {
  readonly messages: ServerMessage[] = [];
  /** Resolves when the connection ends: the close code and reason (1006 when cut without one). */
  readonly closed: Promise<{ code: number; reason: string }>;
  /** The upgrade's refusal, when the server answered it with a status instead of 101. */
  readonly refused: Promise<number | undefined>;
  private readonly waiters = new Set<() => void>();

  private constructor(readonly socket: WebSocket) {
    socket.on('message', (data) => {
      let parsed: ServerMessage;
      try {
        parsed = JSON.parse(String(data));
      } catch {
        parsed = { type: 'unparsable', payload: String(data) };
      }
      this.messages.push(parsed);
      for (const waiter of this.waiters) waiter();
    });
    socket.on('error', () => {});
    this.closed = new Promise((resolve) =>
      socket.on('close', (code, reason) => {
        resolve({ code, reason: String(reason) });
        for (const waiter of this.waiters) waiter();
      }),
    );
    this.refused = new Promise((resolve) => {
      socket.on('unexpected-response', (_request, response) => {
        resolve(response.statusCode);
        response.resume();
        socket.terminate();
      });
      socket.on('open', () => resolve(undefined));
      socket.on('close', () => resolve(undefined));
    });
  }

  /** Opens a socket to `url`'s /graphql with the graphql-transport-ws subprotocol (or `protocol`). */
  static open(url: string, options: { protocol?: string; headers?: Record<string, string> } = {}): RawSocket {
    const target = `${url.replace(/^http/, 'ws')}/graphql`;
    return new RawSocket(
      new WebSocket(target, options.protocol ?? 'graphql-transport-ws', { headers: options.headers }),
    );
  }

  /** Opens a socket and signs in with an API key (or a bearer token); resolves once the server acknowledged. */
  static async signedIn(url: string, credential: string | { bearer: string }): Promise<RawSocket> {
    const socket = RawSocket.open(url);
    await socket.opened();
    socket.send({
      type: 'connection_init',
      payload:
        typeof credential === 'string' ? { 'X-API-KEY': credential } : { Authorization: `Bearer ${credential.bearer}` },
    });
    const ack = await socket.next((message) => message.type === 'connection_ack', 5_000);
    if (!ack) throw new Error(`not acknowledged: ${JSON.stringify(await socket.closed)}`);
    return socket;
  }

  /** Resolves once open; rejects when the upgrade was refused. */
  async opened(): Promise<void> {
    if (this.socket.readyState === WebSocket.OPEN) return;
    if (this.socket.readyState !== WebSocket.CONNECTING) throw new Error('closed before it opened');
    await new Promise<void>((resolve, reject) => {
      this.socket.once('open', () => resolve());
      this.socket.once('close', () => reject(new Error('closed before it opened')));
    });
  }

  /** Sends a message: an object as JSON, a string or bytes as they are. */
  send(message: object | string | Buffer): void {
    this.socket.send(typeof message === 'object' && !Buffer.isBuffer(message) ? JSON.stringify(message) : message);
  }

  /** The first message (kept or to come) that `matches`, removed from those kept; undefined when the socket closes first or `timeoutMs` passes. */
  next(matches: (message: ServerMessage) => boolean, timeoutMs = 2_000): Promise<ServerMessage | undefined> {
    return new Promise((resolve) => {
      const look = () => {
        const index = this.messages.findIndex(matches);
        if (index >= 0) {
          done();
          resolve(this.messages.splice(index, 1)[0]);
        } else if (this.socket.readyState === WebSocket.CLOSED) {
          done();
          resolve(undefined);
        }
      };
      const timer = setTimeout(() => (done(), resolve(undefined)), timeoutMs);
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(look);
      };
      this.waiters.add(look);
      look();
    });
  }

  /** Subscribes (or runs an operation) under `id`, and resolves with its first `next` or `error` message. */
  async first(id: string, query: string, variables?: Record<string, unknown>, timeoutMs = 2_000) {
    this.send({ type: 'subscribe', id, payload: { query, variables } });
    return this.next(
      (message) => message.id === id && (message.type === 'next' || message.type === 'error'),
      timeoutMs,
    );
  }

  close(): void {
    this.socket.terminate();
  }
}

/**
 * A WebSocket frame's header as a client sends it: FIN, the opcode (1 text, 2 binary, 0 continuation,
 * 9 ping), the length it claims, and a mask of zeros (so the payload goes as it is).
 */
export function frameHeader(length: number, opcode = 1, fin = true): Buffer {
  const first = (fin ? 0x80 : 0) | opcode;
  if (length < 126) return Buffer.from([first, 0x80 | length, 0, 0, 0, 0]);
  if (length < 65_536) {
    const header = Buffer.alloc(8);
    header.writeUInt8(first, 0);
    header.writeUInt8(0x80 | 126, 1);
    header.writeUInt16BE(length, 2);
    return header;
  }
  const header = Buffer.alloc(14);
  header.writeUInt8(first, 0);
  header.writeUInt8(0x80 | 127, 1);
  header.writeBigUInt64BE(BigInt(length), 2);
  return header;
}

/** A TCP connection upgraded to a WebSocket on `url`'s /graphql by hand, for frames no client library would send; rejects when refused. */
export function upgradedSocket(url: string, protocol = 'graphql-transport-ws'): Promise<Socket> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) }, () =>
      socket.write(
        `GET /graphql HTTP/1.1\r\nHost: ${hostname}:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
          `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\nSec-WebSocket-Version: 13\r\n` +
          `Sec-WebSocket-Protocol: ${protocol}\r\n\r\n`,
      ),
    );
    let head = '';
    const read = (chunk: Buffer) => {
      head += chunk.toString('latin1');
      if (!head.includes('\r\n\r\n')) return;
      socket.off('data', read);
      if (head.startsWith('HTTP/1.1 101')) resolve(socket);
      else {
        socket.destroy();
        reject(new Error(head.split('\r\n')[0]));
      }
    };
    socket.on('data', read);
    socket.on('error', reject);
  });
}

/** Sends `total` bytes of zeros on `socket` in chunks, as fast as it drains, until all are sent or the server ends it: the bytes sent. */
export async function pour(socket: Socket, total: number): Promise<number> {
  const chunk = Buffer.alloc(1024 * 1024);
  let sent = 0;
  const ended = new Promise<void>((resolve) => {
    socket.once('close', () => resolve());
    socket.once('error', () => resolve());
  });
  while (sent < total && !socket.destroyed) {
    const piece = chunk.subarray(0, Math.min(chunk.length, total - sent));
    sent += piece.length;
    if (!socket.write(piece)) await Promise.race([new Promise((resolve) => socket.once('drain', resolve)), ended]);
  }
  return sent;
}

/** The close code of the first close frame `socket` receives (undefined when it ends without one). */
export function closeCodeOf(socket: Socket): Promise<number | undefined> {
  return new Promise((resolve) => {
    let received = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      // A server frame is unmasked: opcode 8 is a close, its first two payload bytes the code.
      for (let at = 0; at + 2 <= received.length; ) {
        const opcode = received[at] & 0x0f;
        const length = received[at + 1] & 0x7f;
        if (length >= 126) break;
        if (opcode === 8 && at + 4 <= received.length) return resolve(received.readUInt16BE(at + 2));
        at += 2 + length;
      }
    });
    socket.once('close', () => resolve(undefined));
  });
}
