// The embedded database's memory: PostgreSQL's buffers are bounded (PGlite's WebAssembly memory
// grows to hold them and never shrinks), and a new data directory is created and migrated in a
// process of its own, so the server never holds what initdb and the schema engine used.
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openPglite, type DatabaseEngine } from '../src/db/engine.js';
import { hasPendingMigrations } from '../src/db/migrate.js';
import { scratchDirectory } from './helpers/scratch.js';

let engine: DatabaseEngine | undefined;
afterEach(async () => {
  await engine?.close();
  engine = undefined;
});

const newDataDir = () => scratchDirectory('gateway-pglite-memory-');

describe('the embedded database', () => {
  it('keeps 16 MB of shared buffers, on a data directory and in memory', async () => {
    for (const dataDir of [newDataDir(), undefined]) {
      engine = await openPglite(dataDir);
      expect(await engine.query<{ shared_buffers: string }>('SHOW shared_buffers')).toEqual([
        { shared_buffers: '16MB' },
      ]);
      await engine.close();
      engine = undefined;
    }
  }, 60_000);

  it('finds a new data directory created and migrated, with no draft left beside it', async () => {
    const dataDir = newDataDir();
    engine = await openPglite(dataDir);
    expect(existsSync(join(dataDir, 'pglite', 'PG_VERSION'))).toBe(true);
    expect(await hasPendingMigrations(engine)).toBe(false);
    expect(readdirSync(dataDir).filter((name) => name.startsWith('pglite'))).toEqual(['pglite']);
  }, 60_000);

  it('replaces the draft a start cut short left, and keeps an existing database', async () => {
    const dataDir = newDataDir();
    mkdirSync(join(dataDir, 'pglite.new'));
    writeFileSync(join(dataDir, 'pglite.new', 'PG_VERSION'), 'half-made');
    engine = await openPglite(dataDir);
    await engine.query('CREATE TABLE kept (id int)');
    await engine.close();
    engine = await openPglite(dataDir);
    expect(await engine.query('SELECT * FROM kept')).toEqual([]);
    expect(existsSync(join(dataDir, 'pglite.new'))).toBe(false);
  }, 60_000);
});
