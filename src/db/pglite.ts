import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { extractTemplate, templateFile, templateDir } from './pglite-template.js';
import { DatabaseStartError } from './start-error.js';

/**
 * PostgreSQL's settings for the embedded database, beside PGlite's own. PGlite's WebAssembly memory
 * grows to hold shared_buffers (PostgreSQL's default, 128 MB, is PGlite's too) and never shrinks;
 * 16 MB holds the demo data many times over, and reads beyond it come from the OS's page cache.
 */
const settings = ['-c', 'shared_buffers=16MB'];

/** PGlite on the data directory `location` (in memory without one); a new one starts from `template` when given. */
export function startPglite(location?: string, template?: Blob): Promise<PGlite> {
  return PGlite.create(location, { startParams: [...PGlite.defaultStartParams, ...settings], loadDataDir: template });
}

// The child's script beside this module: compiled (dist/) or TypeScript under tsx (npm run dev, the tests).
const self = fileURLToPath(import.meta.url);
const creator = self.replace(/pglite\.(js|ts)$/, 'pglite-create.$1');
const loader = self.endsWith('.ts') ? ['--import', 'tsx'] : [];
// Optimizing PGlite's 9 MB of WebAssembly costs the short-lived child more than it saves: 4.2 against 2.2 s of CPU.
const flags = ['--liftoff-only'];

/**
 * Makes `location` a migrated database when it holds none. From the template in `templates` when there
 * is one (pglite-template.ts), by writing its files. Else in a process of its own, which leaves a
 * template there: creating a database (initdb, on a second PGlite) and migrating it (Prisma's schema
 * engine) peak at about 700 MB, and the process that did it kept about 70 MB of that. Built aside and
 * renamed into place, so a start cut short leaves no half-made database.
 */
export async function createDataDirectory(location: string, templates = templateDir): Promise<void> {
  if (existsSync(`${location}/PG_VERSION`)) return;
  const draft = `${location}.new`;
  rmSync(draft, { recursive: true, force: true });
  const template = await templateFile(templates);
  if (template) await extractTemplate(template, draft);
  else {
    const child = spawn(process.execPath, [...flags, ...loader, creator, draft, templates], {
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    const code = await new Promise<number | null>((resolve, reject) => child.on('exit', resolve).on('error', reject));
    if (code !== 0) throw new DatabaseStartError(`could not create the embedded database in ${location}`);
  }
  renameSync(draft, location);
}

/** Makes the template of the current migrations when there is none: `npm install` and the test suite's set-up call it. */
export async function prepareTemplate(templates = templateDir): Promise<void> {
  if (await templateFile(templates)) return;
  const scratch = mkdtempSync(join(tmpdir(), 'gateway-template-'));
  try {
    await createDataDirectory(join(scratch, 'pglite'), templates);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
