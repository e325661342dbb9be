import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { FrontendMessageReader } from '../../src/db/frontend-messages.js';

/** Where a cut falls: before the COMMIT reaches the server (it rolls back), or after (it commits, its answer is lost). */
export type Cut = 'before' | 'after';

const QUERY = 'Q'.charCodeAt(0);
const PARSE = 'P'.charCodeAt(0);
const SYNC = 'S'.charCodeAt(0);
const TERMINATE = Buffer.from([0x58, 0, 0, 0, 4]);

/** The SQL text of a simple query ('Q') or of a statement prepared by Parse ('P', after its name). */
function sqlOf(bytes: Buffer): string | undefined {
  if (bytes[0] === QUERY) return bytes.toString('utf8', 5, bytes.length - 1);
  if (bytes[0] !== PARSE) return undefined;
  const nameEnd = bytes.indexOf(0, 5);
  return bytes.toString('utf8', nameEnd + 1, bytes.indexOf(0, nameEnd + 1));
}

const COMMIT = /^\s*COMMIT\b/i;

/**
 * A TCP proxy in front of PostgreSQL that cuts a connection when its client sends COMMIT (or another
 * statement it is armed with), once per `arm`: before forwarding it (the server sees the connection end inside the transaction, and rolls
 * it back) or after (the server reads it, then the end of its input: it commits, and the answer
 * reaches nobody). The client sees the same in both cases: its connection lost during COMMIT.
 */
export class CommitCutProxy {
  private server: Server | undefined;
  private armed: { cut: Cut; statement: RegExp } | undefined;
  private readonly sockets = new Set<Socket>();
  /** The cuts made, in order. */
  readonly cuts: Cut[] = [];

  constructor(private readonly upstream: { host: string; port: number }) {}

  async start(): Promise<number> {
    this.server = createServer((client) => this.serve(client));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return (this.server.address() as AddressInfo).port;
  }

  /** The next COMMIT any connection sends (or the next statement `statement` matches: a write in its own transaction) is cut this way. */
  arm(cut: Cut, statement = COMMIT): void {
    this.armed = { cut, statement };
  }

  private serve(client: Socket): void {
    const server = connect(this.upstream);
    for (const socket of [client, server]) {
      // Messages go on as they come: Nagle's algorithm would hold each small one for the last one's ACK.
      socket.setNoDelay(true);
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
      socket.on('error', () => undefined);
    }
    server.pipe(client);
    const reader = new FrontendMessageReader();
    let cutAtSync = false;
    client.on('data', (chunk: Buffer) => {
      // What the chunk holds goes on in one write, up to a cut.
      const forward: Buffer[] = [];
      const flush = () => forward.length && server.write(Buffer.concat(forward.splice(0)));
      const cut = (last?: Buffer) => {
        if (last) forward.push(last);
        // The client's side goes at once; the server's ends gracefully, after what was forwarded.
        client.destroy();
        flush();
        server.end();
      };
      for (const message of reader.read(chunk)) {
        if (message.type === 'encryption') {
          client.write('N');
          continue;
        }
        if (message.type === 'cancel') return cut();
        if (message.type !== 'backend') {
          // The client is leaving.
          flush();
          server.end(TERMINATE);
          continue;
        }
        const { bytes } = message;
        if (cutAtSync && bytes[0] === SYNC) return cut(bytes);
        const armed = this.armed;
        const sql = sqlOf(bytes);
        if (armed && sql !== undefined && armed.statement.test(sql)) {
          this.armed = undefined;
          this.cuts.push(armed.cut);
          if (armed.cut === 'before') return cut();
          // A simple query runs as it arrives; a prepared one at its Sync.
          if (bytes[0] === QUERY) return cut(bytes);
          cutAtSync = true;
        }
        forward.push(bytes);
      }
      flush();
    });
    client.on('end', () => server.end());
    client.on('close', () => server.end());
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
