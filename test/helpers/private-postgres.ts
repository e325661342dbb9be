import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** PostgreSQL's server programs: PG_BIN, else the newest /usr/lib/postgresql/<version>/bin, else those on the PATH. */
function programPath(program: string): string {
  if (process.env.PG_BIN) return join(process.env.PG_BIN, program);
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((name) => /^\d+$/.test(name))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  const found = versions.map((version) => join(root, version, 'bin', program)).find(existsSync);
  return found ?? program;
}

// initdb, postgres and pgbouncer refuse to run as root: under root they run as the postgres user.
const asRoot = process.getuid?.() === 0;

/** Runs a server program (a path, or a name looked up as programPath does) to its end, as the postgres user under root. */
export async function runProgram(program: string, args: string[]): Promise<void> {
  const path = program.includes('/') ? program : programPath(program);
  const [file, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', path, ...args]] : [path, args];
  await run(file, argv, { timeout: 30_000 });
}

/** A directory of its own under the system's temporary one, which the server programs may write. */
export async function serverDirectory(prefix: string): Promise<string> {
  const directory = await mkdtemp(join(tmpdir(), prefix));
  if (asRoot) await run('chown', ['postgres:', directory]);
  return directory;
}

/**
 * A port for a server a test starts, free when asked. It is drawn below the kernel's ephemeral range
 * (32768 and up), where port 0 and every outgoing connection take theirs: a port from there, closed
 * and handed to a server that binds it later (or again after a restart), could meanwhile be taken by
 * a client socket or another test's listener, and the server would fail to start.
 */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    if (await bindable(port)) return port;
  }
}

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}

export interface PrivateCluster {
  /** postgresql://postgres@127.0.0.1:<port>/postgres */
  url: string;
  port: number;
  /** The cluster's data directory (its postmaster.pid names the server's process). */
  dataDirectory: string;
  start(): Promise<void>;
  /** A fast shutdown: open sessions are ended, as when a server goes down under its clients. */
  stop(): Promise<void>;
  /** An immediate shutdown (`pg_ctl -m immediate`): the server is gone at once, as in a crash; a restart recovers. */
  crash(): Promise<void>;
  /** SIGSTOP to the postmaster and every backend: a hung host, that takes connections and answers nothing. */
  pause(): Promise<void>;
  /** SIGCONT to them all. */
  resume(): Promise<void>;
  /** Ends a standby's recovery (`pg_ctl promote`): it takes writes from now on. */
  promote(): Promise<void>;
  /** Stops the server if it runs and deletes its files. */
  remove(): Promise<void>;
}

/** Server settings (`-c name=value`) beyond those every private cluster has. */
export type ServerSettings = Record<string, string>;

/** The cluster whose files are in `directory`/data, served on a free port. */
async function clusterIn(directory: string, settings: ServerSettings): Promise<PrivateCluster> {
  const data = join(directory, 'data');
  const port = await freePort();
  const options = [
    `-p ${port} -k ${directory} -c listen_addresses=127.0.0.1 -c fsync=off`,
    ...Object.entries(settings).map(([name, value]) => `-c ${name}=${value}`),
  ].join(' ');
  let running = false;
  const cluster: PrivateCluster = {
    url: `postgresql://postgres@127.0.0.1:${port}/postgres`,
    port,
    dataDirectory: data,
    async start() {
      await runProgram('pg_ctl', ['-D', data, '-l', join(directory, 'server.log'), '-o', options, '-w', 'start']);
      running = true;
    },
    async stop() {
      await runProgram('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
      running = false;
    },
    async crash() {
      await runProgram('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
      running = false;
    },
    pause: () => signalServer(data, 'SIGSTOP'),
    resume: () => signalServer(data, 'SIGCONT'),
    promote: () => runProgram('pg_ctl', ['-D', data, '-w', 'promote']),
    async remove() {
      // A paused server would not stop.
      if (running) await signalServer(data, 'SIGCONT').catch(() => {});
      if (running) await cluster.stop();
      await rm(directory, { recursive: true, force: true });
    },
  };
  return cluster;
}

/** Sends `signal` to the postmaster of `data` and to every process it started. */
async function signalServer(data: string, signal: NodeJS.Signals): Promise<void> {
  const postmaster = Number((await readFile(join(data, 'postmaster.pid'), 'utf8')).split('\n')[0]);
  const { stdout } = await run('pgrep', ['-P', String(postmaster)]).catch(() => ({ stdout: '' }));
  for (const pid of [postmaster, ...stdout.split('\n').filter(Boolean).map(Number)]) process.kill(pid, signal);
}

/**
 * A PostgreSQL cluster of the test's own, in a temporary directory on a free port, so it can be
 * stopped and started without disturbing the server other test files share. Anything that fails
 * here throws: a test that needs it fails rather than skips.
 */
export async function createPrivateCluster(settings: ServerSettings = {}): Promise<PrivateCluster> {
  const directory = await serverDirectory('gateway-pg-');
  const data = join(directory, 'data');
  await runProgram('initdb', ['-D', data, '--username=postgres', '--auth=trust', '--encoding=UTF8', '--no-sync']);
  return clusterIn(directory, settings);
}

/**
 * A streaming replica of the running `primary`, copied by `pg_basebackup -R` (which writes
 * standby.signal and the connection to the primary), with the same settings; not started yet.
 */
export async function createReplica(primary: PrivateCluster, settings: ServerSettings = {}): Promise<PrivateCluster> {
  const directory = await serverDirectory('gateway-pg-replica-');
  const args = ['-D', join(directory, 'data'), '-R', '-X', 'stream', '--no-sync', '-c', 'fast'];
  await runProgram('pg_basebackup', [...args, '-h', '127.0.0.1', '-p', String(primary.port), '-U', 'postgres']);
  return clusterIn(directory, settings);
}
