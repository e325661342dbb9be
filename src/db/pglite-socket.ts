// Shares the server's embedded database with other processes (the command-line tools, psql) over a
// Unix socket that speaks the PostgreSQL protocol.
//
// PGlite is one PostgreSQL session, which the server's own queries also use. A client therefore
// takes PGlite's transaction lock (the one every in-process query and transaction takes first) at
// its first message and keeps it until the session is idle again (ReadyForQuery with status 'I'):
// a client's transaction, or its batch of Parse/Bind/Execute up to Sync, never interleaves with the
// server's statements, nor the server's with the client's, and the server's requests are answered
// in between. (@electric-sql/pglite-socket locks per message and only against single queries, so a
// client's statement could land inside a transaction of the server; its releases also pin PGlite
// 0.5.14 and seven extension packages as peers.)
import { chmodSync, rmSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { protocol, type PGlite } from '@electric-sql/pglite';
import { DatabaseStartError } from './start-error.js';
import { FrontendMessageReader } from './frontend-messages.js';

/** The longest Unix socket path (sun_path less its terminating zero); Node truncates longer ones silently. */
const MAX_SOCKET_PATH_BYTES = 107;

/** PostgreSQL's socket name, so that psql's `-h DATA_DIR` and pg's `host=DATA_DIR` find it. */
export function socketPath(dataDir: string): string {
  return join(dataDir, '.s.PGSQL.5432');
}

/** The PostgreSQL URL of the socket in `dataDir`; PGlite takes any user and database name. */
export function socketUrl(dataDir: string): string {
  return `postgresql://postgres@localhost/postgres?host=${encodeURIComponent(dataDir)}`;
}

/** One client connection: its messages run in turns, each holding PGlite until the session is idle. */
class Connection {
  readonly #reader = new FrontendMessageReader();
  readonly #queue: Buffer[] = [];
  #closed = false;
  #serving = false;
  /** Wakes a turn that waits for the client's next message. */
  #wake: (() => void) | undefined;
  /** Settles when the messages received so far have run. */
  done: Promise<void> = Promise.resolve();

  constructor(
    readonly socket: Socket,
    private readonly pglite: PGlite,
    private readonly idleInTransactionMs: number,
  ) {
    socket.on('data', (chunk: Buffer) => this.#receive(chunk));
    socket.on('close', () => {
      this.#closed = true;
      this.#wake?.();
    });
    socket.on('error', () => socket.destroy());
  }

  #receive(chunk: Buffer): void {
    try {
      for (const message of this.#reader.read(chunk)) {
        if (message.type === 'encryption') this.socket.write('N');
        else if (message.type === 'backend') this.#queue.push(message.bytes);
        else this.socket.end();
      }
    } catch {
      return void this.socket.destroy();
    }
    this.#wake?.();
    if (!this.#serving && this.#queue.length > 0) {
      this.#serving = true;
      this.done = this.#serve();
    }
  }

  async #serve(): Promise<void> {
    try {
      // Between turns the lock goes to whoever waited for it: the server's queries are not starved.
      while (this.#queue.length > 0 && !this.#closed) await this.pglite._runExclusiveTransaction(() => this.#turn());
    } catch {
      this.socket.destroy();
    }
    this.#serving = false;
  }

  /** Runs the client's messages until the session is idle again; the session is idle when a turn starts. */
  async #turn(): Promise<void> {
    if (this.#closed) return;
    for (let message = await this.#nextMessage(); message; message = await this.#nextMessage()) {
      if (await this.#run(message)) return;
    }
    await this.#abandon();
  }

  /** Runs one message and sends the answer; true when the session is idle afterwards. */
  async #run(message: Uint8Array): Promise<boolean> {
    const { messages, data } = await this.pglite.runExclusive(() =>
      this.pglite.execProtocol(message, { throwOnError: false }),
    );
    // A copy: the startup answer is a view of PGlite's buffer, which the next message overwrites.
    if (!this.socket.destroyed) this.socket.write(Buffer.from(data));
    const last = messages.at(-1);
    return last instanceof protocol.messages.ReadyForQueryMessage && last.status === 'I';
  }

  /** The client's next message; undefined once it has gone, or has been cut off for keeping the session too long. */
  #nextMessage(): Promise<Buffer | undefined> {
    if (this.#closed || this.#queue.length > 0) return Promise.resolve(this.#closed ? undefined : this.#queue.shift());
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.socket.destroy(), this.idleInTransactionMs);
      this.#wake = () => {
        const message = this.#closed ? undefined : this.#queue.shift();
        if (!message && !this.#closed) return;
        clearTimeout(timer);
        this.#wake = undefined;
        resolve(message);
      };
    });
  }

  /**
   * Leaves the session as a disconnect leaves a PostgreSQL backend: nothing of the client's open
   * transaction or unfinished batch is kept. ROLLBACK aborts a batch's implicit transaction too;
   * after an error the session skips everything up to a Sync, and a failed explicit transaction
   * still needs its ROLLBACK after that.
   */
  async #abandon(): Promise<void> {
    await this.#run(protocol.serialize.query('ROLLBACK'));
    await this.#run(protocol.serialize.sync());
    if (this.pglite.isInTransaction()) await this.#run(protocol.serialize.query('ROLLBACK'));
  }
}

export interface SharedDatabase {
  /** Stops accepting clients, disconnects those connected (rolling back what they left open) and removes the socket. */
  close(): Promise<void>;
}

export interface ShareOptions {
  /** A client that keeps a transaction open this long without sending anything is disconnected (and rolled back), so it cannot stall the server. @default 10 s */
  idleInTransactionMs?: number;
}

/** Listens on `DATA_DIR/.s.PGSQL.5432`; the caller holds the data directory's lock, so a socket file found there is stale. */
export async function shareOverSocket(
  pglite: PGlite,
  dataDir: string,
  { idleInTransactionMs = 10_000 }: ShareOptions = {},
): Promise<SharedDatabase> {
  const path = socketPath(dataDir);
  if (Buffer.byteLength(path) > MAX_SOCKET_PATH_BYTES) {
    throw new DatabaseStartError(
      `data directory ${dataDir} is too long a path for its socket (${path} exceeds ${MAX_SOCKET_PATH_BYTES} bytes)`,
    );
  }
  rmSync(path, { force: true });
  const connections = new Set<Connection>();
  const server = createServer((socket) => {
    const connection = new Connection(socket, pglite, idleInTransactionMs);
    connections.add(connection);
    socket.on('close', () => void connection.done.then(() => connections.delete(connection)));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, resolve);
  });
  // No password is asked: the socket is the owner's alone, as the data directory's files are.
  chmodSync(path, 0o600);
  return {
    async close() {
      const closed = new Promise((resolve) => server.close(resolve));
      for (const connection of connections) connection.socket.destroy();
      await Promise.all([...connections].map((connection) => connection.done));
      await closed;
      rmSync(path, { force: true });
    },
  };
}
