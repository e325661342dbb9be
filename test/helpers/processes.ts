import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { DemoKeys } from '../../src/db/seed/keys.js';
import { postGraphQL, type GraphQLResponse } from './graphql.js';

const root = new URL('../..', import.meta.url).pathname;
const startScript: string = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).scripts.start;

/** Compiles the server that `npm start` runs (the suite does it once, in its global setup). */
export async function buildServer(): Promise<void> {
  await promisify(execFile)('npm', ['run', '--silent', 'build'], { cwd: root });
}

export interface ServerProcess {
  child: ChildProcess;
  lines: { out: string[]; err: string[] };
  /** The server's base URL once it serves; rejects if it exits first. */
  url: Promise<string>;
  /** The exit code. */
  exit: Promise<number | null>;
}

/** Starts the server as `npm start` does (its `exec` makes the shell the server, so the child's pid is the server's), collecting its output. */
export function startServer(env: Record<string, string>): ServerProcess {
  const child = spawn('sh', ['-c', startScript], { cwd: root, env: { ...process.env, ...env } });
  const lines = { out: [] as string[], err: [] as string[] };
  const exit = new Promise<number | null>((resolve) => child.on('exit', resolve));
  const url = new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      const received = chunk.toString().split('\n').filter(Boolean);
      lines.out.push(...received);
      const found = received.map((line) => /on (http:\/\/localhost:\d+)\/graphql/.exec(line)?.[1]).find(Boolean);
      if (found) resolve(found);
    });
    void exit.then((code) => reject(new Error(`the server exited (${code}) before serving: ${lines.err.join(' / ')}`)));
  });
  // A test may only look at the exit: an unstarted server is no unhandled rejection.
  url.catch(() => {});
  // A server that fails after it served is a finding of its own: its last words, wherever the test then fails.
  void url.then(
    async () => {
      const code = await exit;
      if (code)
        console.error(
          `a server exited with ${code} after serving; its last lines:\n${[...lines.out.slice(-20), ...lines.err.slice(-20)].join('\n')}`,
        );
    },
    () => {},
  );
  child.stderr.on('data', (chunk: Buffer) => lines.err.push(...chunk.toString().split('\n').filter(Boolean)));
  return { child, lines, url, exit };
}

/** A gateway process on a free port over a seeded database, whose demo keys it is given. */
export interface GatewayProcess {
  url: string;
  keys: DemoKeys;
  server: ServerProcess;
  /** Sends a GraphQL operation, with the demo owner's key unless another (or null) is given. */
  graphql(query: string, variables?: Record<string, unknown>, key?: string | null): Promise<GraphQLResponse>;
  /** Stops it as an operator would (SIGTERM); resolves with its exit code. */
  stop(): Promise<number | null>;
}

/** Starts the server as `npm start` does, with `env` beside PORT=0, and waits until it serves. */
export async function startGateway(env: Record<string, string>, keys: DemoKeys): Promise<GatewayProcess> {
  const server = startServer({ ...env, PORT: '0' });
  const url = await server.url;
  return {
    url,
    keys,
    server,
    graphql: (query, variables, key = keys.owner) => postGraphQL(url, query, { variables, key }),
    stop() {
      server.child.kill('SIGTERM');
      return server.exit;
    },
  };
}

/** Runs `npm run <script> -- <args>` as a user would; resolves with its output and exit code. */
export function runScript(
  script: string,
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    // No prestart build: rebuilding dist/ here would pull it from under other files' servers.
    execFile(
      'npm',
      ['run', '--silent', '--ignore-scripts', script, '--', ...args],
      { cwd: root, env: { ...process.env, ...env } },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}
