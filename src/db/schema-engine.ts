import { readFile, readdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { dirname, join, resolve } from 'node:path';
import {
  bindMigrationAwareSqlAdapterFactory,
  type SqlMigrationAwareDriverAdapterFactory,
} from '@prisma/driver-adapter-utils';
import type { MigrationList, SchemaEngine, SchemasContainer } from '@prisma/schema-engine-wasm';

export const prismaDir = resolve(import.meta.dirname, '../../prisma');
export const migrationsDir = join(prismaDir, 'migrations');
export const schemaPath = join(prismaDir, 'schema.prisma');

type Bindings = typeof import('@prisma/schema-engine-wasm/schema_engine_bg');
let bindings: Promise<Bindings> | undefined;

// The package is built for bundlers (it imports the .wasm file as a module), so Node instantiates it by hand.
function loadBindings(): Promise<Bindings> {
  bindings ??= (async () => {
    const gluePath = fileURLToPath(import.meta.resolve('@prisma/schema-engine-wasm/schema_engine_bg'));
    const glue: Bindings = await import('@prisma/schema-engine-wasm/schema_engine_bg');
    const bytes = await readFile(join(dirname(gluePath), 'schema_engine_bg.wasm'));
    const { instance } = await WebAssembly.instantiate(bytes, { './schema_engine_bg.js': { ...glue } });
    glue.__wbg_set_wasm(instance.exports);
    (instance.exports as { __wbindgen_start(): void }).__wbindgen_start();
    return glue;
  })();
  return bindings;
}

export async function readSchema(): Promise<SchemasContainer> {
  return { files: [{ path: schemaPath, content: await readFile(schemaPath, 'utf8') }] };
}

export async function readMigrations(): Promise<MigrationList> {
  const entries = await readdir(migrationsDir, { withFileTypes: true }).catch(() => []);
  const directories = entries
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
  const lockfilePath = join(migrationsDir, 'migration_lock.toml');
  return {
    baseDir: migrationsDir,
    lockfile: { path: 'migration_lock.toml', content: await readFile(lockfilePath, 'utf8').catch(() => null) },
    shadowDbInitScript: '',
    migrationDirectories: await Promise.all(
      directories.map(async (name) => {
        const content = await readFile(join(migrationsDir, name, 'migration.sql'), 'utf8')
          .then((value) => ({ tag: 'ok' as const, value }))
          .catch((error: Error) => ({ tag: 'error' as const, value: error.message }));
        return { path: name, migrationFile: { path: 'migration.sql', content } };
      }),
    ),
  };
}

/** Runs `work` with Prisma's schema engine connected through the given driver adapter, then frees it. */
export async function withSchemaEngine<T>(
  adapter: SqlMigrationAwareDriverAdapterFactory,
  work: (engine: SchemaEngine) => Promise<T>,
): Promise<T> {
  const glue = await loadBindings();
  const schema = await readSchema();
  const datamodels = schema.files.map((file) => [file.path, file.content] as [string, string]);
  const log = () => {};
  const engine = await glue.SchemaEngine.new({ datamodels }, log, bindMigrationAwareSqlAdapterFactory(adapter));
  try {
    return await work(engine);
  } finally {
    engine.free();
  }
}
