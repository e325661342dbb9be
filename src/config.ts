import { resolve } from 'node:path';

/** Settings read from the environment; the README's configuration table lists them. */
export interface Config {
  /** HTTP port. @default 4000 */
  port: number;
  /** PostgreSQL URL; when unset the embedded PGlite database is used. */
  databaseUrl: string | undefined;
  /** Directory of the embedded database (and, later, uploaded files). @default ./.data */
  dataDir: string;
  /** Connections in the PostgreSQL pool. @default 10 */
  poolSize: number;
  /** Serve GraphiQL at GET /graphql. @default true */
  graphiql: boolean;
  /** Answer introspection queries. @default true */
  introspection: boolean;
  /** Load the demo data into an empty embedded database at start. @default true */
  seedDemo: boolean;
}

function flag(value: string | undefined, fallback: boolean): boolean {
  if (value === undefined || value === '') return fallback;
  return !['0', 'false', 'no', 'off'].includes(value.toLowerCase());
}

function integer(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined || value === '') return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed <= 0) throw new Error(`${name} must be a positive integer, got "${value}"`);
  return parsed;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return {
    port: integer('PORT', env.PORT, 4000),
    databaseUrl: env.DATABASE_URL || undefined,
    dataDir: resolve(env.DATA_DIR || './.data'),
    poolSize: integer('DATABASE_POOL_SIZE', env.DATABASE_POOL_SIZE, 10),
    graphiql: flag(env.GRAPHIQL, true),
    introspection: flag(env.INTROSPECTION, true),
    seedDemo: flag(env.SEED_DEMO, true),
  };
}
