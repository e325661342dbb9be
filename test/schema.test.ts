import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { openPglite } from '../src/db/engine.js';
import { applyMigrations, hasPendingMigrations, pendingSchemaChanges } from '../src/db/migrate.js';
import { printSortedSchema } from '../src/schema/print.js';

it('schema.graphql is printed from the current code (run npm run schema:print)', () => {
  expect(readFileSync(new URL('../schema.graphql', import.meta.url), 'utf8')).toBe(printSortedSchema());
});

it('every change of schema.prisma is held by a migration (run npm run db:migration -- <name>)', async () => {
  const engine = await openPglite(undefined);
  try {
    expect(await pendingSchemaChanges(engine.adapter)).toBe('');
  } finally {
    await engine.close();
  }
});

it('a start loads the schema engine only while a migration folder is not recorded with its checksum', async () => {
  const engine = await openPglite(undefined, { fromTemplate: false });
  try {
    expect(await hasPendingMigrations(engine)).toBe(true);
    expect(await applyMigrations(engine.adapter)).not.toEqual([]);
    expect(await hasPendingMigrations(engine)).toBe(false);
    // An edited migration file no longer matches what Prisma recorded.
    await engine.query(`UPDATE _prisma_migrations SET checksum = md5(checksum)`);
    expect(await hasPendingMigrations(engine)).toBe(true);
  } finally {
    await engine.close();
  }
});
