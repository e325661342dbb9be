// The embedded database shared on its socket, in process: a PostgreSQL client's sessions and the
// server's own statements take turns, and a client that leaves cannot leave anything half-done.
import { existsSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { PGlite, protocol } from '@electric-sql/pglite';
import pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { lockPath } from '../src/db/data-dir-lock.js';
import { openPglite, openPostgres, type DatabaseEngine } from '../src/db/engine.js';
import { shareOverSocket, socketPath, socketUrl } from '../src/db/pglite-socket.js';
import { scratchDirectory } from './helpers/scratch.js';

const message = protocol.serialize;
let dataDir: string;
let engine: DatabaseEngine;

beforeAll(async () => {
  dataDir = scratchDirectory('gateway-socket-');
  engine = await openPglite(dataDir, { share: true });
  await engine.query('CREATE TABLE note (text text)');
});
beforeEach(async () => void (await engine.query('TRUNCATE note')));
afterAll(() => engine.close());

async function client(): Promise<pg.Client> {
  const connection = new pg.Client({ connectionString: socketUrl(dataDir) });
  await connection.connect();
  return connection;
}

const notes = async () =>
  (await engine.query<{ text: string }>('SELECT text FROM note ORDER BY text')).map((row) => row.text);

/** Sends raw protocol messages after the startup, then drops the connection without a word. */
async function sendAndVanish(messages: Uint8Array[]): Promise<void> {
  const socket = connect(socketPath(dataDir));
  const answered = (bytes: Uint8Array) =>
    new Promise<void>((resolve) => socket.once('data', () => resolve()).write(bytes));
  await answered(message.startup({ user: 'postgres', database: 'postgres' }));
  for (const bytes of messages) await answered(bytes);
  await new Promise((resolve) => socket.once('close', resolve).destroy());
}

describe('the embedded database shared on its socket', () => {
  it("runs a client's transaction whole between the server's statements", async () => {
    const other = await client();
    await other.query('BEGIN');
    await other.query("INSERT INTO note VALUES ('client')");
    const events: string[] = [];
    const serverRead = notes().then((seen) => events.push(`server saw ${seen.join()}`));
    await sleep(200);
    events.push('client commits');
    await other.query('COMMIT');
    await serverRead;
    expect(events).toEqual(['client commits', 'server saw client']);
    await other.end();
  });

  it("runs the server's transaction whole between a client's statements", async () => {
    const other = await client();
    const connection = await engine.adapter.connect();
    const transaction = await connection.startTransaction();
    const insert = (text: string) =>
      transaction.executeRaw({
        sql: 'INSERT INTO note VALUES ($1)',
        args: [text],
        argTypes: [{ scalarType: 'string', arity: 'scalar' }],
      });
    await insert('first');
    const clientRead = other.query('SELECT count(*)::int AS n FROM note');
    await sleep(200);
    await insert('second');
    await transaction.commit();
    expect((await clientRead).rows[0].n).toBe(2);
    await other.end();
  });

  it('keeps nothing of a client that vanishes in a transaction, in a batch without Sync, or after an error', async () => {
    await sendAndVanish([message.query('BEGIN'), message.query("INSERT INTO note VALUES ('open transaction')")]);
    await sendAndVanish([
      message.parse({ text: "INSERT INTO note VALUES ('unsynced batch')" }),
      message.bind(),
      message.execute(),
    ]);
    await sendAndVanish([
      message.query('BEGIN'),
      message.query("INSERT INTO note VALUES ('failed')"),
      message.parse({ text: 'SELECT nothing' }),
    ]);
    await sendAndVanish([
      message.parse({ text: "INSERT INTO note VALUES ('synced batch')" }),
      message.bind(),
      message.execute(),
      message.sync(),
    ]);
    expect(await notes()).toEqual(['synced batch']);
  });

  it("serves a command-line tool's pool, which finds the socket by the URL's host parameter", async () => {
    // The URL names localhost too: a pool that took it would reach a PostgreSQL server there, or none.
    const tool = await openPostgres({ url: socketUrl(dataDir), poolSize: 1 });
    try {
      await engine.query(`INSERT INTO note VALUES ('written by the server')`);
      expect(await tool.query<{ text: string }>('SELECT text FROM note')).toEqual([{ text: 'written by the server' }]);
    } finally {
      await tool.close();
    }
  });

  it("passes the notifications of a client's changes to the server's listeners", async () => {
    const received: (string | undefined)[] = [];
    await engine.listen('note_changed', (payload) => received.push(payload));
    const other = await client();
    await other.query("SELECT pg_notify('note_changed', 'from the client')");
    await other.end();
    await sleep(50);
    expect(received).toEqual(['from the client']);
  });

  it('cuts off a client that idles in a transaction, and rolls it back, so the server goes on', async () => {
    const pglite = await PGlite.create();
    await pglite.exec('CREATE TABLE note (text text)');
    const directory = scratchDirectory('gateway-socket-');
    const shared = await shareOverSocket(pglite, directory, { idleInTransactionMs: 300 });
    const idle = new pg.Client({ connectionString: socketUrl(directory) });
    await idle.connect();
    const cutOff = new Promise((resolve) => idle.once('error', resolve));
    await idle.query('BEGIN');
    await idle.query("INSERT INTO note VALUES ('never committed')");
    const asked = Date.now();
    expect((await pglite.query<{ n: number }>('SELECT count(*)::int AS n FROM note')).rows[0].n).toBe(0);
    expect(Date.now() - asked).toBeGreaterThanOrEqual(250);
    await cutOff;
    await shared.close();
    await pglite.close();
  });

  it('refuses a data directory too long for its socket, and leaves no lock behind', async () => {
    const deep = join(scratchDirectory('gateway-socket-'), 'd'.repeat(100));
    await expect(openPglite(deep, { share: true })).rejects.toThrow(/too long a path for its socket/);
    expect(existsSync(lockPath(deep))).toBe(false);
  });
});
