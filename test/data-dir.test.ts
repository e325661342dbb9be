// One process owns an embedded data directory: the server holds it, a second server is refused, the
// command-line tools work through the running server, and nothing acknowledged is lost. Real
// processes (the compiled server as `npm start` runs it, the tools as `npm run` runs them) on a real
// PGlite directory; the tests run in order on one directory and one server.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lockPath } from '../src/db/data-dir-lock.js';
import { demo } from '../src/db/seed/index.js';
import { postGraphQL } from './helpers/graphql.js';
import { runScript, startServer, type ServerProcess } from './helpers/processes.js';
import { scratchDirectory } from './helpers/scratch.js';

const demoKey = 'wbg_data_dir_test_key';
const owner = demo.users.owner.email;
const dataDir = scratchDirectory('gateway-data-dir-');
const serverEnv = { DATA_DIR: dataDir, PORT: '0', DEMO_API_KEY: demoKey };
let server: ServerProcess;

const tool = (script: string, ...args: string[]) => runScript(script, args, { DATA_DIR: dataDir });
const lockHolder = () => readFileSync(lockPath(dataDir), 'utf8').trim();

async function graphql(query: string, variables: Record<string, unknown> = {}, key = demoKey) {
  return postGraphQL(await server.url, query, { variables, key });
}

async function createKey(name: string): Promise<string> {
  const created = await tool('api-key', 'create', '--email', owner, '--name', name);
  expect(created.code, created.stderr).toBe(0);
  return created.stdout.trim();
}

/** Kills the server as a crash would; returns its pid. */
async function kill(): Promise<number | undefined> {
  const { pid } = server.child;
  server.child.kill('SIGKILL');
  await server.exit;
  return pid;
}

async function restart(): Promise<void> {
  server.child.kill('SIGTERM');
  expect(await server.exit).toBe(0);
  server = startServer(serverEnv);
  await server.url;
}

beforeAll(async () => {
  server = startServer(serverEnv);
  await server.url;
});
afterAll(async () => {
  server.child.kill('SIGTERM');
  await server.exit;
});

describe('one process owns an embedded data directory', () => {
  it('holds the directory with a lock file naming the server', () => {
    expect(lockHolder()).toBe(String(server.child.pid));
  });

  it('refuses a second server on the same directory: one line naming the directory and the holder, exit 1', async () => {
    const second = startServer(serverEnv);
    expect(await second.exit).toBe(1);
    expect(second.lines.err).toEqual([`error: data directory ${dataDir} is in use by process ${server.child.pid}`]);
    expect((await graphql('{ whiteboards { totalCount } }')).status).toBe(200);
  });

  it('answers at once, and after a restart, to a key the command line creates while the server runs', async () => {
    const secret = await createKey('made while the server runs');
    expect(secret).toMatch(/^wbg_/);
    expect((await graphql('{ whiteboards { totalCount } }', {}, secret)).status).toBe(200);
    await restart();
    expect((await graphql('{ whiteboards { totalCount } }', {}, secret)).status).toBe(200);
  }, 60_000);

  it('refuses at once a key the command line revokes while the server runs', async () => {
    const secret = await createKey('to be revoked');
    // Used once, so the server has it cached.
    expect((await graphql('{ whiteboards { totalCount } }', {}, secret)).status).toBe(200);
    const listed = await tool('api-key', 'list', '--email', owner);
    const prefix = listed.stdout
      .split('\n')
      .find((line) => line.includes('to be revoked'))!
      .split('\t')[0];
    expect((await tool('api-key', 'revoke', '--prefix', prefix)).stdout).toContain('revoked 1 key(s)');
    expect((await graphql('{ whiteboards { totalCount } }', {}, secret)).status).toBe(401);
  }, 60_000);

  it("runs db:migrate and db:seed on the running server's database", async () => {
    const through = `${join(dataDir, 'pglite')} (through the server, process ${server.child.pid})`;
    expect((await tool('db:migrate')).stdout).toContain(`${through} is up to date`);
    expect((await tool('db:seed')).stdout).toContain(`${through} already holds data`);
  }, 60_000);

  it('keeps, across a restart, 200 writes through the server made while the command line wrote too', async () => {
    const mutation = 'mutation($name: String!) { createWhiteboard(input: { name: $name }) { whiteboard { rowId } } }';
    let toolsWriting = true;
    const toolWrites = (async () => {
      for (let i = 0; i < 3; i++) await createKey(`interleaved ${i}`);
      toolsWriting = false;
    })();
    const serverWrites = (async () => {
      for (let i = 0; i < 200; i++) {
        const created = await graphql(mutation, { name: `interleaved ${i}` });
        expect(created.errors).toBeUndefined();
        // Spread over the tools' lifetime, so that their writes land among these.
        if (toolsWriting) await sleep(20);
      }
    })();
    await Promise.all([toolWrites, serverWrites]);
    await restart();
    const { data } = await graphql(`{
      whiteboards(filter: { name: { startsWith: "interleaved " } }) { totalCount }
      apiKeys(filter: { name: { startsWith: "interleaved " } }) { totalCount }
    }`);
    expect(data).toEqual({ whiteboards: { totalCount: 200 }, apiKeys: { totalCount: 3 } });
  }, 90_000);

  it('takes over the lock a killed server left, with everything that server acknowledged', async () => {
    const killed = await kill();
    expect(lockHolder()).toBe(String(killed));
    server = startServer(serverEnv);
    await server.url;
    expect(lockHolder()).toBe(String(server.child.pid));
    expect(
      (await graphql('{ whiteboards(filter: { name: { startsWith: "interleaved " } }) { totalCount } }')).data
        ?.whiteboards.totalCount,
    ).toBe(200);
  }, 60_000);

  it('lets a tool take over the lock a killed server left, and let go of it', async () => {
    await kill();
    expect((await tool('api-key', 'list', '--email', owner)).stdout).toContain('interleaved 2');
    expect(existsSync(lockPath(dataDir))).toBe(false);
  }, 60_000);
});
