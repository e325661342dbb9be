import { describe, expect, it } from 'vitest';
import { postgresServerUrl } from './helpers/database.js';
import { startServer as start } from './helpers/processes.js';
import { scratchDirectory } from './helpers/scratch.js';

// The production path: the compiled server, started by the start script.

describe('start-up and shutdown', () => {
  it('exits non-zero with one line naming host and port when DATABASE_URL is unreachable', async () => {
    const { lines, exit } = start({ DATABASE_URL: 'postgresql://postgres@127.0.0.1:1/nowhere', PORT: '0' });
    expect(await exit).toBe(1);
    expect(lines.err).toHaveLength(1);
    expect(lines.err[0]).toMatch(/^error: cannot reach PostgreSQL at 127\.0\.0\.1:1\/nowhere/);
  });

  it('refuses ROW_LEVEL_SECURITY on the embedded database, and to a role that passes every policy', async () => {
    const embedded = start({ DATA_DIR: '/tmp/unused', PORT: '0', ROW_LEVEL_SECURITY: 'true' });
    expect(await embedded.exit).toBe(1);
    expect(embedded.lines.err).toEqual(['error: ROW_LEVEL_SECURITY needs PostgreSQL: set DATABASE_URL as well']);
    const pooled = start({
      DATABASE_URL: 'postgresql://postgres@127.0.0.1:6432/db',
      DATABASE_DIRECT_URL: 'postgresql://postgres@127.0.0.1:5432/db',
      PORT: '0',
      ROW_LEVEL_SECURITY: 'true',
    });
    expect(await pooled.exit).toBe(1);
    expect(pooled.lines.err).toEqual([
      'error: ROW_LEVEL_SECURITY cannot run behind a pooler in transaction mode (DATABASE_DIRECT_URL is set)',
    ]);
    // The server's superuser, as CI connects: its statements would pass the policies unseen.
    const superuser = start({ DATABASE_URL: postgresServerUrl(), PORT: '0', ROW_LEVEL_SECURITY: 'true' });
    expect(await superuser.exit).toBe(1);
    expect(superuser.lines.err).toEqual([
      expect.stringMatching(/^error: ROW_LEVEL_SECURITY: role "postgres" is a superuser or has BYPASSRLS/),
    ]);
  }, 60_000);

  it('says so and exits when the data directory is not writable', async () => {
    const { lines, exit } = start({ DATA_DIR: '/proc/not-writable', PORT: '0' });
    expect(await exit).toBe(1);
    expect(lines.err).toEqual([expect.stringMatching(/^error: data directory \/proc\/not-writable is not writable/)]);
  });

  it('serves, then on SIGTERM lets the request in flight finish, closes the database and exits 0', async () => {
    const dataDir = scratchDirectory('gateway-start-');
    const { child, lines, url, exit } = start({ DATA_DIR: dataDir, PORT: '0', DEMO_API_KEY: 'wbg_start_test_key' });
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
    const inFlight = fetch(`${await url}/graphql`, {
      method: 'POST',
      headers,
      body: stream,
      duplex: 'half',
    } as RequestInit);
    await new Promise((resolve) => setTimeout(resolve, 500));
    child.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 500));
    finishBody();
    const response = await inFlight;
    expect(response.status).toBe(200);
    expect((await response.json()).data.whiteboards.totalCount).toBeGreaterThan(0);
    expect(await exit).toBe(0);
    expect(lines.out.some((line) => line.includes("Demo owner's API key (X-API-KEY): wbg_start_test_key"))).toBe(true);
    // The start line says which cross-origin policy is in force.
    expect(lines.out).toContainEqual(
      expect.stringMatching(
        /^Whiteboard gateway on .*; cross-origin calls: from any origin \(CORS_ORIGINS unset, not production\)\)$/,
      ),
    );
  }, 60_000);
});

describe('a start that fails on DATABASE_URL', () => {
  it('names what is wrong in one line, never the password, however it is given or written', async () => {
    const secret = 'hunter2';
    for (const url of [
      `postgresql://postgres:${secret}@127.0.0.1:1/nowhere`,
      `postgresql://postgres@127.0.0.1:1/nowhere?password=${secret}`,
      `postgresql://postgres:pa/${secret}@127.0.0.1:1/nowhere`,
      `postgresql://postgres:12/${secret}@127.0.0.1:1/nowhere`,
      `postgresql://postgres:pa?${secret}@127.0.0.1:1/nowhere`,
      `postgre://postgres:${secret}@127.0.0.1:1/nowhere`,
    ]) {
      const { lines, exit } = start({ DATABASE_URL: url, PORT: '0' });
      expect(await exit, url).toBe(1);
      expect(lines.err, url).toHaveLength(1);
      expect(lines.err[0], url).toMatch(/^error: /);
      expect([...lines.err, ...lines.out].join('\n'), url).not.toContain(secret);
    }
  }, 60_000);
});
