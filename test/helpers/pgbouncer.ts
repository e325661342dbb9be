import { existsSync, readFileSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort, runProgram, serverDirectory } from './private-postgres.js';

/** Debian's pgbouncer (PGBOUNCER names another), outside the PATH of users other than root. */
const program = process.env.PGBOUNCER ?? (existsSync('/usr/sbin/pgbouncer') ? '/usr/sbin/pgbouncer' : 'pgbouncer');

export interface PgBouncer {
  port: number;
  pid: number;
  /** The URL of `database` through PgBouncer. */
  url(database: string): string;
  /** Points it at another server and reloads it (SIGHUP), as an operator does after a failover. */
  retarget(target: { host: string; port: number }): Promise<void>;
  stop(): Promise<void>;
}

export interface PgBouncerOptions {
  /** @default transaction */
  mode?: 'transaction' | 'session';
  /** More settings of its [pgbouncer] section (server_login_retry, query_wait_timeout...). */
  settings?: Record<string, string | number>;
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * PgBouncer of the test's own, in transaction mode (unless told otherwise) on a free port of
 * 127.0.0.1, in front of the PostgreSQL server at `host:port` (every database, by its name, as the
 * user `postgres` with no password): `poolSize` server connections per database, whatever the
 * number of clients.
 */
export async function startPgBouncer(
  target: { host: string; port: number },
  poolSize: number,
  options: PgBouncerOptions = {},
): Promise<PgBouncer> {
  const directory = await serverDirectory('gateway-pgbouncer-');
  const port = await freePort();
  const pidFile = join(directory, 'pgbouncer.pid');
  await writeFile(join(directory, 'users.txt'), '"postgres" ""\n', { mode: 0o644 });
  const settings = {
    listen_addr: '127.0.0.1',
    listen_port: port,
    unix_socket_dir: '',
    auth_type: 'trust',
    auth_file: join(directory, 'users.txt'),
    pool_mode: options.mode ?? 'transaction',
    default_pool_size: poolSize,
    max_client_conn: 200,
    pidfile: pidFile,
    logfile: join(directory, 'pgbouncer.log'),
    ...options.settings,
  };
  const writeIni = (server: { host: string; port: number }) => {
    const ini = [
      '[databases]',
      `* = host=${server.host} port=${server.port}`,
      '[pgbouncer]',
      ...Object.entries(settings).map(([name, value]) => `${name} = ${value}`),
    ].join('\n');
    return writeFile(join(directory, 'pgbouncer.ini'), `${ini}\n`, { mode: 0o644 });
  };
  await writeIni(target);
  await runProgram(program, ['-d', join(directory, 'pgbouncer.ini')]);
  // The daemon writes its pid file and opens its port after the command has returned.
  for (const deadline = Date.now() + 10_000; !existsSync(pidFile) || !(await accepts(port)); await sleep(50)) {
    if (Date.now() > deadline) throw new Error(`pgbouncer does not accept connections on port ${port}`);
  }
  const pid = Number(readFileSync(pidFile, 'utf8'));
  return {
    port,
    pid,
    url: (database) => `postgresql://postgres@127.0.0.1:${port}/${database}`,
    async retarget(server) {
      await writeIni(server);
      process.kill(pid, 'SIGHUP');
    },
    async stop() {
      // SIGTERM: PgBouncer closes every connection at once.
      process.kill(pid, 'SIGTERM');
      while (alive(pid)) await sleep(50);
      await rm(directory, { recursive: true, force: true });
    },
  };
}
