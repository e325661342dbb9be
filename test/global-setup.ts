import { execFileSync } from 'node:child_process';

/**
 * Compiles the server that `npm start` runs, once before any file: the suites that start real
 * processes run in parallel, and a build per file would empty `dist/` under another file's server.
 */
export function setup(): void {
  execFileSync('npm', ['run', '--silent', 'build'], { cwd: new URL('..', import.meta.url).pathname });
}
