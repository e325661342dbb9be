import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';

const root = new URL('..', import.meta.url).pathname;
const startScript: string = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).scripts.start;

// The production path: the compiled server, started by the start script (its `exec` makes the shell the server).
beforeAll(() => void execFileSync('npm', ['run', '--silent', 'build'], { cwd: root }));

/** Starts the server as `npm start` does, collecting its output; `onLine` may act on each line. */
function start(env: Record<string, string>, onLine: (line: string, child: ReturnType<typeof spawn>) => void = () => {}) {
  const child = spawn('sh', ['-c', startScript], { cwd: root, env: { ...process.env, ...env } });
  const lines = { out: [] as string[], err: [] as string[] };
  child.stdout.on('data', (chunk: Buffer) => chunk.toString().split('\n').filter(Boolean).forEach((line) => (lines.out.push(line), onLine(line, child))));
  child.stderr.on('data', (chunk: Buffer) => lines.err.push(...chunk.toString().split('\n').filter(Boolean)));
  const exit = new Promise<number | null>((resolve) => child.on('exit', resolve));
  return { child, lines, exit };
}

describe('start-up and shutdown', () => {
  it('exits non-zero with one line naming host and port when DATABASE_URL is unreachable', async () => {
    const { lines, exit } = start({ DATABASE_URL: 'postgresql://postgres@127.0.0.1:1/nowhere', PORT: '0' });
    expect(await exit).toBe(1);
    expect(lines.err).toHaveLength(1);
    expect(lines.err[0]).toMatch(/^error: cannot reach PostgreSQL at 127\.0\.0\.1:1\/nowhere/);
  });

  it('says so and exits when the data directory is not writable', async () => {
    const { lines, exit } = start({ DATA_DIR: '/proc/not-writable', PORT: '0' });
    expect(await exit).toBe(1);
    expect(lines.err).toEqual([expect.stringMatching(/^error: data directory \/proc\/not-writable is not writable/)]);
  });

  it('serves, then on SIGTERM lets the request in flight finish, closes the database and exits 0', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'gateway-start-'));
    let url: (value: string) => void;
    const started = new Promise<string>((resolve) => (url = resolve));
    const { child, lines, exit } = start({ DATA_DIR: dataDir, PORT: '0', DEMO_API_KEY: 'wbg_start_test_key' }, (line) => {
      const found = /on (http:\/\/localhost:\d+)\/graphql/.exec(line)?.[1];
      if (found) url(found);
    });
    const body = JSON.stringify({ query: '{ whiteboards { totalCount } }' });
    const headers = { 'content-type': 'application/json', 'x-api-key': 'wbg_start_test_key' };
    // A request whose body is still arriving when the signal comes: surely in flight, never idle.
    let finishBody!: () => void;
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(body.slice(0, 10)));
        finishBody = () => {
          controller.enqueue(new TextEncoder().encode(body.slice(10)));
          controller.close();
        };
      },
    });
    const inFlight = fetch(`${await started}/graphql`, { method: 'POST', headers, body: stream, duplex: 'half' } as RequestInit);
    await new Promise((resolve) => setTimeout(resolve, 500));
    child.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 500));
    finishBody();
    const response = await inFlight;
    expect(response.status).toBe(200);
    expect((await response.json()).data.whiteboards.totalCount).toBeGreaterThan(0);
    expect(await exit).toBe(0);
    expect(lines.out.some((line) => line.includes("Demo owner's API key (X-API-KEY): wbg_start_test_key"))).toBe(true);
  }, 60_000);
});
