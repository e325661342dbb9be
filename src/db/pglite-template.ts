import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { createRequire } from 'node:module';
import type { PGlite } from '@electric-sql/pglite';
import { extract } from 'tar';
import { isAlive } from './data-dir-lock.js';
import { readMigrations } from './schema-engine.js';

/**
 * Where templates are kept: a migrated, empty embedded database as PGlite dumps it (a tar), one per
 * PGlite version and set of migrations. A new database loads it instead of running initdb and the
 * migrations, which are most of a first start's CPU. `npm install` makes it (postinstall); so does
 * the first database created without one.
 */
export const templateDir = resolve(import.meta.dirname, '../../node_modules/.cache/whiteboard-gateway');

/** Named by what makes a database: PGlite's version (its PostgreSQL and data format) and every migration. */
async function templateName(): Promise<string> {
  const pglitePackage = join(
    dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite')),
    '../package.json',
  );
  const hash = createHash('sha256').update(
    (JSON.parse(await readFile(pglitePackage, 'utf8')) as { version: string }).version,
  );
  for (const { path, migrationFile } of (await readMigrations()).migrationDirectories)
    hash.update(`\0${path}\0${migrationFile.content.tag}\0${migrationFile.content.value}`);
  return `pglite-${hash.digest('hex').slice(0, 16)}.tar`;
}

/** The file of the current migrations' template, if one was made. */
export async function templateFile(dir = templateDir): Promise<string | undefined> {
  const file = join(dir, await templateName());
  return existsSync(file) ? file : undefined;
}

/** The current migrations' template as PGlite loads it (`loadDataDir`), if one was made. */
export async function readTemplate(dir = templateDir): Promise<Blob | undefined> {
  const file = await templateFile(dir);
  return file === undefined ? undefined : new Blob([await readFile(file)]);
}

/** Writes the template's files into the new directory `location`: a data directory, without starting PGlite to load it. */
export async function extractTemplate(file: string, location: string): Promise<void> {
  await mkdir(location, { recursive: true });
  await extract({ file, cwd: location });
}

/**
 * Keeps `pglite`, just created and migrated, as the template. A template of other migrations is
 * dropped, and so is a draft whose writer died before renaming it.
 */
export async function saveTemplate(pglite: PGlite, dir = templateDir): Promise<void> {
  const name = await templateName();
  await mkdir(dir, { recursive: true });
  // Written aside and renamed, so a reader never sees half a file.
  const draft = join(dir, `${name}.${process.pid}`);
  // Everything in the data files: a database loaded from the template has no log to replay.
  await pglite.exec('CHECKPOINT');
  await writeFile(draft, Buffer.from(await (await pglite.dumpDataDir('none')).arrayBuffer()));
  await rename(draft, join(dir, name));
  for (const other of await readdir(dir)) {
    const match = other.match(/^pglite-[0-9a-f]+\.tar(?:\.(\d+))?$/);
    if (!match) continue;
    const stale = match[1] === undefined ? other !== name : !isAlive(Number(match[1]));
    if (stale) await rm(join(dir, other), { force: true });
  }
}
