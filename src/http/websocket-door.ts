import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { WebSocket as ProtocolSocket } from 'graphql-ws';
import type { WebSocket } from 'ws';
import { logger } from '../observability/logger.js';

/** What a client may send before its `connection_init` is accepted, in all: that message holds only a key or a token (at most 8 KiB). */
export const SIGN_IN_BYTES = 64 * 1024;
/** Sockets of all addresses that may wait to sign in at once: SIGN_IN_BYTES each at most, so a few tens of MiB in all. */
export const UNAUTHENTICATED_SOCKETS = 512;
/** Answers a client has left unread past which it is cut off: it does not read what it asked for. */
export const UNREAD_BYTES = 16 * 1024 * 1024;
/** How long a socket closed for a fault may take to say goodbye before it is cut. */
const CLOSE_GRACE_MS = 1_000;
/** How often each socket must answer a ping (a WebSocket control frame) to be kept: a peer gone without a word holds nothing for long. */
const KEEP_ALIVE_MS = 12_000;

/** Sockets pinged that have not answered yet. */
const unanswered = new WeakSet<WebSocket>();

/** What the WebSocket door of an instance may hold, from its settings. */
export interface WebSocketLimits {
  /** MAX_BODY_BYTES: the largest message, refused with 1009 from its header. */
  maxMessageBytes: number;
  /** WEBSOCKET_INIT_TIMEOUT_MS. */
  initTimeoutMs: number;
  /** WEBSOCKET_UNAUTHENTICATED_PER_ADDRESS. */
  unauthenticatedPerAddress: number;
  /** MAX_SUBSCRIPTIONS_PER_KEY: also the most sockets one key (or user, for tokens) holds open. */
  socketsPerHolder: number;
}

/** The sockets waiting to sign in, per client address and in all. */
export class WaitingRoom {
  private readonly byAddress = new Map<string, number>();
  private total = 0;

  constructor(private readonly perAddress: number) {}

  /** Why another socket of `address` may not wait now: an HTTP status and its words; undefined when it may. */
  refusal(address: string): { status: number; message: string } | undefined {
    if ((this.byAddress.get(address) ?? 0) >= this.perAddress)
      return {
        status: 429,
        message: `Too Many Requests: ${this.perAddress} connections of this address wait to sign in`,
      };
    if (this.total >= UNAUTHENTICATED_SOCKETS)
      return { status: 503, message: 'Service Unavailable: too many connections wait to sign in' };
    return undefined;
  }

  /** Takes a place for a socket of `address`; the returned function gives it back (once, however often called); undefined when full. */
  enter(address: string): (() => void) | undefined {
    if (this.refusal(address)) return undefined;
    this.byAddress.set(address, (this.byAddress.get(address) ?? 0) + 1);
    this.total++;
    let left = false;
    return () => {
      if (left) return;
      left = true;
      this.total--;
      const count = this.byAddress.get(address)! - 1;
      if (count) this.byAddress.set(address, count);
      else this.byAddress.delete(address);
    };
  }
}

/** Closes with `code` and `reason`, and cuts the connection if the client has not answered in CLOSE_GRACE_MS (it may be busy sending). */
export function closeSoon(socket: WebSocket, code: number, reason: string): void {
  socket.close(code, reason);
  setTimeout(() => socket.terminate(), CLOSE_GRACE_MS).unref();
}

/** Closes for a fault of the client's frames and reads nothing more of it: a client that goes on sending costs no more work. */
function refuse(socket: WebSocket, connection: Duplex, code: number, reason: string): void {
  closeSoon(socket, code, reason);
  // After ws's own resume of the connection, which it schedules when it refuses a frame.
  setImmediate(() => connection.pause());
}

/** Sends `data` unless the client has left too much unread, in which case it is cut off; resolves once written (graphql-ws paces each stream by it). */
function sendPaced(socket: WebSocket, data: string): Promise<void> {
  return new Promise((resolve) => {
    if (socket.readyState !== socket.OPEN) return resolve();
    if (socket.bufferedAmount > UNREAD_BYTES) {
      socket.terminate();
      return resolve();
    }
    // A failed write means the socket is gone, which its close reports.
    socket.send(data, () => resolve());
  });
}

/**
 * Watches a new socket's transport, before graphql-ws reads any of it: before sign-in, at most
 * SIGN_IN_BYTES of frames in all, counted on the TCP connection as they arrive (so a large frame is
 * refused as its header comes, whatever it claims); pings answered only while the client reads; a
 * frame `ws` refuses (too large, malformed) closes the socket at once. Answers the socket as
 * graphql-ws sees it, and `signedIn`, which lifts the byte bound.
 */
export function guardSocket(
  socket: WebSocket,
  request: IncomingMessage,
  onMessage: (data: string) => void,
): { transport: Omit<ProtocolSocket, 'onMessage'>; signedIn(): void } {
  let received = 0;
  const count = (chunk: Buffer) => {
    received += chunk.length;
    if (received <= SIGN_IN_BYTES) return;
    request.socket.off('data', count);
    refuse(
      socket,
      request.socket,
      1009,
      `Message Too Big: before sign-in a connection may send ${SIGN_IN_BYTES} bytes`,
    );
  };
  request.socket.on('data', count);
  socket.on('message', (data) => onMessage(String(data)));
  // ws has closed it with the fault's code (1009 for a frame past maxPayload, 1002 or 1007 for a malformed one).
  socket.on('error', (error) => {
    logger.debug({ reason: error.message }, 'a WebSocket frame was refused');
    refuse(socket, request.socket, 1002, 'Protocol Error');
  });
  socket.on('ping', () => (socket.bufferedAmount > UNREAD_BYTES ? socket.terminate() : socket.pong()));
  socket.on('pong', () => unanswered.delete(socket));
  socket.once('close', () => request.socket.off('data', count));
  return {
    transport: {
      protocol: socket.protocol,
      send: (data) => sendPaced(socket, data),
      close: (code, reason) => closeSoon(socket, code ?? 1000, reason ?? ''),
      // graphql-transport-ws pings: answered without echoing their payload, which the client chose.
      onPing: () => sendPaced(socket, '{"type":"pong"}'),
    },
    signedIn: () => request.socket.off('data', count),
  };
}

/** Pings every socket every KEEP_ALIVE_MS, and cuts those that did not answer the last ping. Answers the function that stops it. */
export function keepAlive(sockets: Iterable<WebSocket>): () => void {
  const timer = setInterval(() => {
    for (const socket of sockets) {
      if (unanswered.has(socket)) {
        socket.terminate();
        continue;
      }
      unanswered.add(socket);
      socket.ping();
    }
  }, KEEP_ALIVE_MS);
  timer.unref();
  return () => clearInterval(timer);
}
