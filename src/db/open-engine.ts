import { join } from 'node:path';
import type { Config } from '../config.js';
import { DataDirInUseError, liveHolder } from './data-dir-lock.js';
import { openPglite, openPostgres, type DatabaseEngine } from './engine.js';
import { socketUrl } from './pglite-socket.js';
import { rowSecurityBypass } from './row-security.js';
import { DatabaseStartError } from './start-error.js';

/**
 * Who opens the database. The `server` holds the embedded database and shares it on its socket; a
 * data directory another live process holds is refused. A command-line `tool` works through the
 * socket of the live server that holds the data directory, and opens it itself when none does.
 */
export type DatabaseUser = 'server' | 'tool';

export type DatabaseSettings = Partial<
  Pick<
    Config,
    | 'databaseUrl'
    | 'databaseDirectUrl'
    | 'dataDir'
    | 'poolSize'
    | 'preparedStatements'
    | 'replicaUrls'
    | 'replicaMaxLagMs'
    | 'rowLevelSecurity'
    | 'databaseBounds'
  >
> & {
  /** The embedded database in memory starts from this dumped data directory instead of the migrated template. */
  pgliteTemplate?: Blob;
};

/** The configured engine: PostgreSQL at DATABASE_URL, else the embedded database (in memory when no data directory is given). */
export async function openEngine(settings: DatabaseSettings, user: DatabaseUser): Promise<DatabaseEngine> {
  const { databaseUrl, dataDir } = settings;
  if (databaseUrl) {
    const engine = await openPostgres({
      url: databaseUrl,
      directUrl: settings.databaseDirectUrl,
      poolSize: settings.poolSize ?? 10,
      preparedStatements: settings.preparedStatements,
      bounds: settings.databaseBounds,
    });
    // Before any migration: a start that is refused changes nothing.
    const bypass = settings.rowLevelSecurity ? await rowSecurityBypass(engine) : undefined;
    if (!bypass) return engine;
    await engine.close();
    throw new DatabaseStartError(bypass);
  }
  const holder = dataDir && user === 'tool' ? liveHolder(dataDir) : undefined;
  if (dataDir && holder) return joinServer(dataDir, holder);
  return openPglite(dataDir, { share: user === 'server', template: settings.pgliteTemplate });
}

async function joinServer(dataDir: string, pid: number): Promise<DatabaseEngine> {
  try {
    // One connection: PGlite is one session, which a second connection could only wait for.
    const engine = await openPostgres({ url: socketUrl(dataDir), poolSize: 1 });
    return { ...engine, location: `${join(dataDir, 'pglite')} (through the server, process ${pid})` };
  } catch (error) {
    // Nothing answers on the socket: the holder is another tool, or a server still starting.
    if (error instanceof DatabaseStartError) throw new DataDirInUseError(dataDir, pid);
    throw error;
  }
}
