import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
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

// initdb and postgres refuse to run as root: under root they run as the postgres user.
const asRoot = process.getuid?.() === 0;

async function runProgram(program: string, args: string[]): Promise<void> {
  const [file, argv] = asRoot
    ? ['runuser', ['-u', 'postgres', '--', programPath(program), ...args]]
    : [programPath(program), args];
  await run(file, argv, { timeout: 30_000 });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.on('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

export interface PrivateCluster {
  /** postgresql://postgres@127.0.0.1:<port>/postgres */
  url: string;
  start(): Promise<void>;
  /** A fast shutdown: open sessions are ended, as when a server goes down under its clients. */
  stop(): Promise<void>;
  /** Stops the server if it runs and deletes its files. */
  remove(): Promise<void>;
}

/**
 * A PostgreSQL cluster of the test's own, in a temporary directory on a free port, so it can be
 * stopped and started without disturbing the server other test files share. Anything that fails
 * here throws: a test that needs it fails rather than skips.
 */
export async function createPrivateCluster(): Promise<PrivateCluster> {
  const directory = await mkdtemp(join(tmpdir(), 'gateway-pg-'));
  if (asRoot) await run('chown', ['postgres:', directory]);
  const data = join(directory, 'data');
  await runProgram('initdb', ['-D', data, '--username=postgres', '--auth=trust', '--encoding=UTF8', '--no-sync']);
  const port = await freePort();
  const options = `-p ${port} -k ${directory} -c listen_addresses=127.0.0.1 -c fsync=off`;
  let running = false;
  const cluster: PrivateCluster = {
    url: `postgresql://postgres@127.0.0.1:${port}/postgres`,
    async start() {
      await runProgram('pg_ctl', ['-D', data, '-l', join(directory, 'server.log'), '-o', options, '-w', 'start']);
      running = true;
    },
    async stop() {
      await runProgram('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
      running = false;
    },
    async remove() {
      if (running) await cluster.stop();
      await rm(directory, { recursive: true, force: true });
    },
  };
  return cluster;
}
