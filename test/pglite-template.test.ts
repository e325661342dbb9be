// The embedded database's template: a new database loads it instead of running initdb and the
// migrations, and must be the very database those would have made.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import { expect, it } from 'vitest';
import { createDataDirectory, startPglite } from '../src/db/pglite.js';
import { readTemplate } from '../src/db/pglite-template.js';
import { scratchDirectory } from './helpers/scratch.js';

/** A process id that no process holds: one that just exited. */
const deadPid = () => spawnSync(process.execPath, ['-e', '']).pid;

const scratch = () => scratchDirectory('gateway-template-');

/** What the migrations made: tables and columns, indexes, constraints, triggers, functions, the migrations' record. */
async function schemaOf(pglite: PGlite): Promise<unknown[]> {
  const catalog = [
    `SELECT table_name, column_name, data_type, is_nullable, column_default FROM information_schema.columns
       WHERE table_schema = 'public' ORDER BY 1, 2`,
    `SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'public' ORDER BY 1`,
    `SELECT conrelid::regclass::text, conname, pg_get_constraintdef(oid) FROM pg_constraint
       WHERE connamespace = 'public'::regnamespace ORDER BY 1, 2`,
    `SELECT tgrelid::regclass::text, tgname FROM pg_trigger WHERE NOT tgisinternal ORDER BY 1, 2`,
    `SELECT proname, prosrc FROM pg_proc WHERE pronamespace = 'public'::regnamespace ORDER BY 1`,
    `SELECT relname, relpersistence FROM pg_class WHERE relnamespace = 'public'::regnamespace ORDER BY 1`,
    `SELECT migration_name, checksum FROM _prisma_migrations WHERE finished_at IS NOT NULL ORDER BY 1`,
  ];
  return Promise.all(catalog.map(async (sql) => (await pglite.query(sql)).rows));
}

it('makes a new data directory from the template equal to one made by initdb and the migrations', async () => {
  const templates = scratch();
  // A template of other migrations, which the new one replaces, and the draft of a writer that died.
  writeFileSync(join(templates, 'pglite-0123456789abcdef.tar'), 'stale');
  writeFileSync(join(templates, `pglite-0123456789abcdef.tar.${deadPid()}`), 'half');
  const [made, loaded] = [join(scratch(), 'pglite'), join(scratch(), 'pglite')];

  expect(await readTemplate(templates)).toBeUndefined();
  await createDataDirectory(made, templates);
  expect(await readTemplate(templates)).toBeDefined();
  expect(readdirSync(templates)).toHaveLength(1);
  await createDataDirectory(loaded, templates);
  expect(existsSync(join(loaded, 'PG_VERSION'))).toBe(true);

  const schemas = [];
  for (const location of [made, loaded]) {
    const pglite = await startPglite(location);
    try {
      schemas.push(await schemaOf(pglite));
    } finally {
      await pglite.close();
    }
  }
  const [fromMigrations, fromTemplate] = schemas;
  expect(fromMigrations.every((rows) => Array.isArray(rows) && rows.length > 0)).toBe(true);
  expect(fromTemplate).toEqual(fromMigrations);
}, 120_000);

it('starts a database in memory from the template, writable and separate from every other', async () => {
  const template = await readTemplate();
  expect(template).toBeDefined();
  const [first, second] = [await startPglite(undefined, template), await startPglite(undefined, template)];
  try {
    await first.query('UPDATE change_log_state SET pruned_xid = 42');
    const pruned = 'SELECT pruned_xid::int AS pruned FROM change_log_state';
    expect((await first.query(pruned)).rows).toEqual([{ pruned: 42 }]);
    expect((await second.query(pruned)).rows).toEqual([{ pruned: 0 }]);
  } finally {
    await Promise.all([first.close(), second.close()]);
  }
}, 60_000);
