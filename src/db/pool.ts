import { connect as connectSocket } from 'node:net';
import pg from 'pg';
import type { DatabaseBounds } from '../config.js';
import { currentRequest } from '../observability/requests.js';
import { parseConnectionString } from './connection-string.js';
import { HostSelector } from './host-selector.js';
import { currentScope, inReadScope, ScopedClient } from './row-security.js';
import { DatabaseUnavailableError } from './unavailable.js';

/**
 * How a session gets its timeouts: in the startup packet (PostgreSQL itself), by SET after connecting
 * (a pooler in session mode, which refuses unknown startup parameters), or not at all (a pooler in
 * transaction mode hands the server connection to other clients between statements: the server's or
 * the role's own setting holds there, and the gateway's bound on an answer).
 */
export type SessionTimeouts = 'startup' | 'set' | 'none';

/** PostgreSQL's read_only_sql_transaction. */
const READ_ONLY = '25006';

/** A statement that has not answered this long past its own time is cancelled; this long again, its connection is dropped. */
const ANSWER_GRACE_MS = 1_000;
/** How often the pool looks for statements past their time. */
const WATCH_MS = 100;
/**
 * Requests that may wait for a connection, per connection of the pool: one more is refused at once
 * (503), so a flood costs neither memory nor a wait. A connection serves a plain read in about a
 * millisecond, so 50 is some 50 ms of queue: a burst of real clients waits, a flood does not grow.
 */
export const WAITERS_PER_CONNECTION = 50;

interface Watched {
  query: unknown;
  since: number;
  cancelled: boolean;
}

export interface GatewayPoolOptions {
  url: string;
  max: number;
  bounds: DatabaseBounds;
  sessionTimeouts: SessionTimeouts;
  /** Connections a mutation may hold at once; the rest stay for reads, which no row lock can hold up. @default max */
  writeSlots?: number;
  /** Its server is the primary: one that refuses a write as read-only was demoted (a failover), and its connection is dropped. @default true */
  primary?: boolean;
}

const writeSlotsFor = (poolSize: number) => poolSize - Math.max(1, Math.floor(poolSize / 4));

/** The connections that mutations may hold of a pool of `poolSize`: a quarter (at least one) stays for reads, none of a pool of one. */
export function defaultWriteSlots(poolSize: number): number {
  return poolSize > 1 ? writeSlotsFor(poolSize) : poolSize;
}

/** The timeouts in PostgreSQL's own terms, as the startup packet or SET carries them. */
function serverTimeouts(bounds: DatabaseBounds) {
  return {
    statement_timeout: bounds.statementTimeoutMs,
    lock_timeout: bounds.lockTimeoutMs,
    // A transaction left open by a lost process must not hold its locks for ever.
    idle_in_transaction_session_timeout: bounds.statementTimeoutMs,
  };
}

/**
 * Asks the server to cancel the statement a session runs (PostgreSQL's CancelRequest, on a connection
 * of its own): over TCP, or over the server's Unix socket when the host is a directory, as libpq reads it.
 */
function cancel(host: string, port: number, processID: number, secretKey: number): void {
  const packet = Buffer.alloc(16);
  packet.writeInt32BE(16, 0);
  packet.writeInt32BE(80877102, 4);
  packet.writeInt32BE(processID, 8);
  packet.writeInt32BE(secretKey, 12);
  const address = host.startsWith('/') ? { path: `${host}/.s.PGSQL.${port}` } : { host, port };
  const socket = connectSocket(address, () => socket.end(packet));
  socket.setTimeout(ANSWER_GRACE_MS, () => socket.destroy());
  socket.on('error', () => socket.destroy());
}

type PoolClientConfig = pg.ClientConfig & { gateway: GatewayPool };

/**
 * A pooled connection: opened on the server the pool's host selector names (libpq's multi-host
 * URLs), with the session's timeouts, and watched by its pool for statements past their time.
 */
export class GatewayClient extends ScopedClient {
  /** When the request it serves must be answered (performance.now()); undefined outside a request. */
  deadline: number | undefined;
  watched: Watched | undefined;
  private readonly gateway: GatewayPool;
  private server = { host: '', port: 0 };

  constructor(config: PoolClientConfig) {
    super(config);
    this.gateway = config.gateway;
  }

  // biome-ignore lint/suspicious/noExplicitAny: pg's connect takes a callback or none (then it returns a promise)
  override connect(...args: any[]): any {
    const [callback] = args as [((error?: Error) => void) | undefined];
    const opening = this.open();
    if (!callback) return opening;
    opening.then(() => callback(), callback);
  }

  private async open(): Promise<this> {
    const { selector, sessionTimeouts } = this.gateway;
    const server = await selector.server();
    // The pool gives up on a connection that takes too long by destroying its socket, perhaps while the server was chosen.
    if (this.connection.stream.destroyed) throw new DatabaseUnavailableError('timeout expired');
    this.server = server;
    this.host = this.connectionParameters.host = server.host;
    this.port = this.connectionParameters.port = server.port;
    try {
      await super.connect();
    } catch (error) {
      selector.forget(server);
      throw error;
    }
    // Until the pool listens for errors, a connection lost now fails the statements below, and only them.
    const ignore = () => {};
    this.on('error', ignore);
    try {
      if (!(await selector.confirm(this as unknown as pg.ClientBase, server))) {
        this.connection.stream.destroy();
        throw new DatabaseUnavailableError(
          `${server.host}:${server.port} no longer accepts ${selector.connection.target} sessions (a failover)`,
        );
      }
      if (sessionTimeouts === 'set') {
        const settings = Object.entries(serverTimeouts(this.gateway.bounds));
        await super.query(settings.map(([name, value]) => `SET ${name} = ${value}`).join('; '));
      }
    } finally {
      this.off('error', ignore);
    }
    if (this.gateway.primary) this.connection.on('errorMessage', (message: { code?: string }) => this.demoted(message));
    this.gateway.watch(this);
    return this;
  }

  /** A write refused as read-only: the statement fails with it, then the connection goes, and the next one asks where the primary is. */
  private demoted(message: { code?: string }): void {
    if (message.code === READ_ONLY) setImmediate(() => this.abandon('it refuses writes: no longer the primary'));
  }

  /** Past `now`'s limits for its running statement: cancels it, then drops the connection. */
  check(now: number): void {
    const running = this._getActiveQuery();
    if (!running) {
      this.watched = undefined;
      return;
    }
    const watched = this.watched;
    if (watched?.query !== running) {
      this.watched = { query: running, since: now, cancelled: false };
      return;
    }
    const { statementTimeoutMs } = this.gateway.bounds;
    const ownLimit = statementTimeoutMs > 0 ? watched.since + statementTimeoutMs + ANSWER_GRACE_MS : Infinity;
    const giveUpAt = Math.min(ownLimit, this.deadline ?? Infinity);
    if (now >= giveUpAt) this.abandon(`no answer within ${Math.round(now - watched.since)} ms`);
    else if (now >= giveUpAt - ANSWER_GRACE_MS && !watched.cancelled && this.processID !== null) {
      watched.cancelled = true;
      cancel(this.server.host, this.server.port, this.processID, this.secretKey ?? 0);
    }
  }

  /** Drops the connection: its statements fail as a server that is away fails. */
  abandon(reason: string): void {
    this.gateway.selector.forget(this.server);
    this.connection.stream.destroy(new DatabaseUnavailableError(`${this.server.host}:${this.server.port}: ${reason}`));
  }

  // pg's and pg-pool's own, which their types leave out; `_getActiveQuery` has no deprecation notice, as `activeQuery` has.
  declare _getActiveQuery: () => unknown;
  declare connectionParameters: { host: string; port: number };
  declare processID: number | null;
  declare secretKey: number | null;
  declare release: Release;
}

/** A request refused at once: `waiting` requests wait for a connection already. */
const crowded = (waiting: number, what: string) =>
  new DatabaseUnavailableError(`every connection${what} is busy and ${waiting} requests wait for one already`);

/** Waiters for a write slot, first come first served, at most `maxWaiting`. */
class Slots {
  private readonly waiting: (() => void)[] = [];

  constructor(
    private free: number,
    private readonly maxWaiting: number,
  ) {}

  /** Calls `granted` once a slot is held (at once when one is free), or `late` after `timeoutMs` (at once past `maxWaiting`). */
  take(timeoutMs: number, granted: () => void, late: (error: Error) => void): void {
    if (this.free > 0) {
      this.free--;
      granted();
      return;
    }
    if (this.waiting.length >= this.maxWaiting) {
      late(crowded(this.waiting.length, ' for writes'));
      return;
    }
    const grant = () => {
      clearTimeout(timer);
      granted();
    };
    const timer = setTimeout(() => {
      this.waiting.splice(this.waiting.indexOf(grant), 1);
      late(
        new DatabaseUnavailableError('timeout exceeded when trying to connect (every connection for writes is busy)'),
      );
    }, timeoutMs);
    this.waiting.push(grant);
  }

  give(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.free++;
  }
}

type Release = (error?: Error | boolean) => void;
type ConnectCallback = (error: Error | undefined, client?: GatewayClient, release?: Release) => void;

/**
 * The gateway's pool: bounded waits for a connection (pg-pool's connectionTimeoutMillis), at most
 * WAITERS_PER_CONNECTION waiting per connection, bounded waits for an answer (a watch over its
 * connections), connections on the server a multi-host URL names, a request's deadline carried to the
 * connection that serves it, and mutations held to their write slots. A
 * statement waiting for a pooled connection keeps its caller's row-security scope: pg-pool hands a
 * freed connection to a waiter in the context of whatever freed it.
 */
export class GatewayPool extends pg.Pool {
  readonly selector: HostSelector;
  readonly bounds: DatabaseBounds;
  readonly primary: boolean;
  readonly sessionTimeouts: SessionTimeouts;
  /** A request's deadline is its start plus this: a connection's wait and one statement's time. */
  private readonly requestBoundMs: number;
  private readonly maxWaiting: number;
  private readonly writes: Slots | undefined;
  private readonly clients = new Set<GatewayClient>();
  private timer: NodeJS.Timeout | undefined;

  constructor(options: GatewayPoolOptions) {
    const connection = parseConnectionString(options.url);
    const { bounds, sessionTimeouts } = options;
    super({
      connectionString: connection.urlOf(connection.servers[0]),
      max: options.max,
      connectionTimeoutMillis: bounds.connectTimeoutMs,
      ...(sessionTimeouts === 'startup' ? serverTimeouts(bounds) : {}),
      Client: GatewayClient,
    } as unknown as pg.PoolConfig);
    (this.options as unknown as PoolClientConfig).gateway = this;
    this.selector = new HostSelector(connection, bounds.connectTimeoutMs);
    this.bounds = bounds;
    this.primary = options.primary ?? true;
    this.sessionTimeouts = sessionTimeouts;
    this.requestBoundMs = bounds.connectTimeoutMs + bounds.statementTimeoutMs;
    this.maxWaiting = options.max * WAITERS_PER_CONNECTION;
    const writeSlots = options.writeSlots ?? options.max;
    this.writes = writeSlots < options.max ? new Slots(writeSlots, this.maxWaiting) : undefined;
    // A connection lost while idle (a server that went down, a failover): the next one asks where to go.
    this.on('error', (_, client) => (client as GatewayClient).abandon('connection lost'));
  }

  /** Watches a newly opened connection until it ends. */
  watch(client: GatewayClient): void {
    this.clients.add(client);
    client.once('end', () => this.clients.delete(client));
    this.timer ??= setInterval(() => {
      const now = performance.now();
      for (const each of this.clients) each.check(now);
    }, WATCH_MS).unref();
  }

  /** Drops every connection that is running a statement (its server stopped answering): they fail at once instead of at their bound. */
  abandonRunning(reason: string): void {
    for (const client of this.clients) if (client._getActiveQuery()) client.abandon(reason);
  }

  override async end(): Promise<void> {
    clearInterval(this.timer);
    await super.end();
  }

  // biome-ignore lint/suspicious/noExplicitAny: pg-pool's connect takes a callback or none (then it returns a promise)
  override connect(...args: any[]): any {
    const [callback] = args as [ConnectCallback | undefined];
    const found = currentRequest();
    // A request that has been answered has no deadline left to keep (work it left behind runs in its context).
    const request = found?.closed ? undefined : found;
    const deadline = request && request.start + this.requestBoundMs;
    const scope = currentScope();
    const write = this.writes !== undefined && request?.operationType === 'mutation';
    if (!callback) {
      // Transactions (Prisma's): the same, as a promise.
      return new Promise<GatewayClient>((resolve, reject) =>
        this.checkout(write, deadline, (error, client) => {
          if (!client) return reject(error);
          client.deadline = deadline;
          resolve(client);
        }),
      );
    }
    this.checkout(write, deadline, (error, client, release) =>
      // The waiter runs under its own caller's scope (none included), not that of whatever freed the connection.
      inReadScope(scope, () => {
        if (client) client.deadline = deadline;
        callback(error, client, client?.release ?? release);
      }),
    );
  }

  /** A pooled connection; for a mutation, a write slot first, given back with the connection. No promise when one is free. */
  private checkout(write: boolean, deadline: number | undefined, handed: ConnectCallback): void {
    // Waiters are there only while every connection is taken.
    if (this.waitingCount >= this.maxWaiting) return void process.nextTick(handed, crowded(this.waitingCount, ''));
    const writes = this.writes;
    if (!write || !writes) return void super.connect(handed as Parameters<pg.Pool['connect']>[0]);
    const wait = Math.max(0, Math.min(this.bounds.connectTimeoutMs, (deadline ?? Infinity) - performance.now()));
    writes.take(
      wait,
      () =>
        super.connect(((error: Error | undefined, client: GatewayClient | undefined, release: Release) => {
          if (!client) {
            writes.give();
            return handed(error, client, release);
          }
          const held = client.release;
          client.release = (failure) => {
            writes.give();
            held(failure);
          };
          handed(undefined, client, client.release);
        }) as Parameters<pg.Pool['connect']>[0]),
      (error) => handed(error),
    );
  }
}
