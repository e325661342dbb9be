import pg from 'pg';
import type { ConnectionString, ServerAddress, TargetSessionAttrs } from './connection-string.js';
import { DatabaseUnavailableError } from './unavailable.js';

/** What a session on a server is: a standby in recovery, and whether its transactions are read-only. */
interface SessionKind {
  inRecovery: boolean;
  readOnly: boolean;
}

const kindSql =
  "SELECT pg_is_in_recovery() AS in_recovery, current_setting('transaction_read_only') = 'on' AS read_only";

/** The kind of the session `client` holds. */
export async function sessionKind(client: pg.ClientBase): Promise<SessionKind> {
  const {
    rows: [row],
  } = await client.query<{ in_recovery: boolean; read_only: boolean }>(kindSql);
  return { inRecovery: row.in_recovery, readOnly: row.read_only };
}

/** Whether a session of `kind` has the attributes libpq's `target_session_attrs` asks for (`prefer-standby` takes any). */
export function qualifies(target: TargetSessionAttrs, kind: SessionKind): boolean {
  switch (target) {
    case 'read-write':
      return !kind.readOnly;
    case 'read-only':
      return kind.readOnly;
    case 'primary':
      return !kind.inRecovery;
    case 'standby':
      return kind.inRecovery;
    default:
      return true;
  }
}

/**
 * Which server of a connection string new connections go to. The first connection asks every
 * server at once what its session is (a server that hangs costs the connection timeout once, not
 * once per server in turn) and takes the first in the string's order that qualifies, as libpq would;
 * later connections go there until one fails or finds the wrong kind of session (a failover), and
 * the next connection asks again. A plain URL asks nothing.
 */
/** After every server was asked and none qualified, connections fail this long without asking again (a storm of probes helps nobody). */
const ASK_AGAIN_MS = 200;

export class HostSelector {
  private current: ServerAddress | undefined;
  private asking: Promise<ServerAddress> | undefined;
  private lastFailure: { at: number; error: Error } | undefined;

  constructor(
    readonly connection: ConnectionString,
    private readonly connectTimeoutMs: number,
  ) {
    if (!this.checks) this.current = connection.servers[0];
  }

  /** Whether a session must be checked before it is used (several servers, or attributes asked for). */
  get checks(): boolean {
    return this.connection.servers.length > 1 || this.connection.target !== 'any';
  }

  server(): Promise<ServerAddress> {
    if (this.current) return Promise.resolve(this.current);
    const failure = this.lastFailure;
    if (failure && performance.now() - failure.at < ASK_AGAIN_MS) return Promise.reject(failure.error);
    this.asking ??= this.ask()
      .catch((error: Error) => {
        this.lastFailure = { at: performance.now(), error };
        throw error;
      })
      .finally(() => (this.asking = undefined));
    return this.asking;
  }

  /** A connection to `server` failed or found the wrong kind of session: the next one asks every server again. */
  forget(server: ServerAddress): void {
    if (this.checks && this.current === server) this.current = undefined;
  }

  /** Whether the session `client` holds has the attributes asked for (false: forgotten, the caller closes it). */
  async confirm(client: pg.ClientBase, server: ServerAddress): Promise<boolean> {
    if (!this.checks) return true;
    const kind = await sessionKind(client);
    if (qualifies(this.connection.target, kind)) return true;
    this.forget(server);
    return false;
  }

  private async ask(): Promise<ServerAddress> {
    const { servers, target, description } = this.connection;
    const kinds = await Promise.all(servers.map((server) => this.kindOf(server)));
    const wanted = target === 'prefer-standby' ? 'standby' : target;
    let found = servers.find((_, i) => !(kinds[i] instanceof Error) && qualifies(wanted, kinds[i] as SessionKind));
    if (!found && target === 'prefer-standby') found = servers.find((_, i) => !(kinds[i] instanceof Error));
    if (found) return (this.current = found);
    const reasons = servers.map((server, i) => {
      const kind = kinds[i];
      const why = kind instanceof Error ? kind.message.split('\n')[0] : kind.inRecovery ? 'a standby' : 'read-only';
      return `${server.host}:${server.port}: ${why}`;
    });
    throw new DatabaseUnavailableError(
      `no server of ${description} accepts ${target} sessions now (${reasons.join('; ')})`,
    );
  }

  private async kindOf(server: ServerAddress): Promise<SessionKind | Error> {
    const client = new pg.Client({
      connectionString: this.connection.urlOf(server),
      connectionTimeoutMillis: this.connectTimeoutMs,
      query_timeout: this.connectTimeoutMs,
    });
    client.on('error', () => {});
    try {
      await client.connect();
      const kind = await sessionKind(client);
      void client.end().catch(() => {});
      return kind;
    } catch (error) {
      // A server that does not answer would not answer a goodbye either.
      client.connection.stream.destroy();
      return error as Error;
    }
  }
}
