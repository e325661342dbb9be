import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { openPglite } from '../src/db/engine.js';
import { templateFile } from '../src/db/pglite-template.js';
import { hasPendingMigrations, pendingSchemaChanges } from '../src/db/migrate.js';
import { printSortedSchema } from '../src/schema/print.js';

it('schema.graphql is printed from the current code (run npm run schema:print)', () => {
  expect(readFileSync(new URL('../schema.graphql', import.meta.url), 'utf8')).toBe(printSortedSchema());
});

it('every change of schema.prisma is held by a migration (run npm run db:migration -- <name>)', async () => {
  // The template is made from the current migrations (its name hashes them), so it stands for replaying them.
  expect(await templateFile()).toBeDefined();
  const engine = await openPglite(undefined);
  try {
    expect(await pendingSchemaChanges(engine.adapter, 'database')).toBe('');
  } finally {
    await engine.close();
  }
});

// The template was migrated by the schema engine (pglite-template.test.ts proves it equal to a database
// migrated from scratch), so it holds what applyMigrations records.
it('a start loads the schema engine only while a migration folder is not recorded with its checksum', async () => {
  const engine = await openPglite(undefined);
  try {
    expect(await hasPendingMigrations(engine)).toBe(false);
    // An edited migration file no longer matches what Prisma recorded.
    await engine.query(
      `UPDATE _prisma_migrations SET checksum = md5(checksum) WHERE migration_name = (SELECT max(migration_name) FROM _prisma_migrations)`,
    );
    expect(await hasPendingMigrations(engine)).toBe(true);
    // A migration folder that was never applied.
    await engine.query(
      `DELETE FROM _prisma_migrations WHERE migration_name = (SELECT max(migration_name) FROM _prisma_migrations)`,
    );
    expect(await hasPendingMigrations(engine)).toBe(true);
    await engine.query('DROP TABLE _prisma_migrations');
    expect(await hasPendingMigrations(engine)).toBe(true);
  } finally {
    await engine.close();
  }
});
