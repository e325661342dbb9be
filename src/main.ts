import { createServer, type Server } from 'node:http';
import { createGatewayServer } from './http/server.js';
import type { AddressInfo } from 'node:net';
import { commandLine } from './cli.js';
import { loadConfig, type Config } from './config.js';
import { db, openDatabase, type Database } from './db/index.js';
import { DatabaseStartError } from './db/engine.js';
import { isDemoKey, isEmpty, seedDemo } from './db/seed/index.js';
import { createApp } from './http/app.js';
import { describeCors } from './http/cors.js';
import { serveGraphQLOverWebSocket } from './http/websocket.js';
import { schema } from './schema/index.js';
import { configureLogging, scrub } from './observability/logger.js';
import { metricsListener } from './observability/metrics.js';
import { printRuntimeNotice } from './runtime.js';
import { startTracing } from './observability/tracing.js';

/** How long in-flight requests get to finish after SIGTERM/SIGINT before their connections are cut. */
const SHUTDOWN_GRACE_MS = 10_000;

/** A start-up failure the operator can fix: one line, no stack trace, no secret. */
function fail(message: string): never {
  console.error(`error: ${scrub(message)}`);
  process.exit(1);
}

/**
 * Opens the database, loading the demo data into an empty embedded one. Answers the demo owner's
 * secret when the server knows it: it loaded the demo data now, or DEMO_API_KEY is a key of the data.
 */
async function openAndSeed(config: Config): Promise<{ database: Database; demoKey?: string }> {
  const database = await openDatabase(config, 'server');
  try {
    if (config.databaseUrl) return { database };
    if (config.seedDemo && (await isEmpty(database.prisma))) {
      const keys = await seedDemo(database.prisma, config.demoApiKey);
      console.log(
        `The embedded database was empty: loaded the demo data. Demo owner's API key (X-API-KEY): ${keys.owner}`,
      );
      return { database, demoKey: keys.owner };
    }
    if (!config.demoApiKey) return { database };
    if (await isDemoKey(database.prisma, config.demoApiKey)) return { database, demoKey: config.demoApiKey };
    console.log(
      `DEMO_API_KEY is not a key of ${config.dataDir}: it applies only when the demo data is first loaded ` +
        '(start on an empty DATA_DIR, or run npm run db:seed -- --reset).',
    );
    return { database };
  } catch (error) {
    await database.close();
    throw error;
  }
}

/** Stops accepting connections and lets in-flight requests finish, cutting them after SHUTDOWN_GRACE_MS. */
async function closeServer(server: Server): Promise<void> {
  const force = setTimeout(() => server.closeAllConnections(), SHUTDOWN_GRACE_MS);
  await new Promise((resolve) => server.close(resolve));
  clearTimeout(force);
}

function exitOnListenError(listening: Server, port: string): void {
  listening.once('error', async (error: NodeJS.ErrnoException) => {
    await db().close();
    fail(error.code === 'EADDRINUSE' ? `${port} is already in use` : error.message);
  });
}

let server: Server | undefined;
let metricsServer: Server | undefined;
let closeWebSockets: (() => Promise<void>) | undefined;
let closeGateway: (() => Promise<void>) | undefined;
let stopTracing: (() => Promise<void>) | undefined;
let stopping = false;
async function shutdown(): Promise<void> {
  // A second signal means "stop waiting"; before the server exists, that means quitting now.
  if (stopping) return void (server ? server.closeAllConnections() : process.exit(1));
  stopping = true;
  // Start-up checks `stopping` once the database is open, so migrations and the seed are not cut half-way.
  if (!server) return;
  // Subscriptions never finish on their own: their sockets are closed rather than waited for.
  await Promise.all([closeServer(server), closeWebSockets?.(), metricsServer && closeServer(metricsServer)]);
  await closeGateway?.();
  await db().close();
  // The last spans, the database's closing included, go out before the exit.
  await stopTracing?.();
  process.exit(0);
}
process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);

commandLine(`
usage: npm start       (the compiled server; npm run dev runs the TypeScript sources)

Serves GraphQL at http://localhost:$PORT/graphql (GraphiQL in a browser), the legacy REST routes under
/api/, their OpenAPI page at /docs, and /health and /ready. Settings come from the environment, among them:

  PORT            HTTP port (4000; 0 takes a free one)
  DATABASE_URL    a PostgreSQL database, created when missing and the role may; unset: the embedded
                  database under DATA_DIR (./.data), loaded with the demo data on first start
  DATABASE_DIRECT_URL    PostgreSQL itself when DATABASE_URL is PgBouncer in transaction mode
  DATABASE_REPLICA_URLS  streaming replicas (comma-separated) that answer query operations
  DEMO_API_KEY    the demo owner's key when the demo data is loaded (random otherwise)
  NODE_ENV        production: GraphiQL never opens with the demo key, no cross-origin calls by default
  CORS_ORIGINS    origins whose browser pages may call the gateway (comma-separated, or *)

docs/configuration.md lists every setting.
`);

printRuntimeNotice();

let config: Config;
try {
  config = loadConfig();
} catch (error) {
  // loadConfig throws only for invalid settings.
  fail((error as Error).message);
}

await configureLogging({ level: config.logLevel, format: config.logFormat });
// Before the database opens, so Prisma's client finds the instrumentation.
if (config.otlpEndpoint) stopTracing = await startTracing(config.serviceName);

let database: Database;
let demoKey: string | undefined;
try {
  ({ database, demoKey } = await openAndSeed(config));
} catch (error) {
  if (error instanceof DatabaseStartError) fail(error.message);
  console.error(scrub(error instanceof Error ? (error.stack ?? error.message) : String(error)));
  process.exit(1);
}
if (stopping) {
  await database.close();
  process.exit(0);
}

let gateway: ReturnType<typeof createApp>;
try {
  // The page that carries the demo key is served to anyone who reaches the port: never in production.
  gateway = createApp({ schema, config, demoKey: config.production ? undefined : demoKey });
} catch (error) {
  // A TRUSTED_DOCUMENTS manifest that cannot be read or parsed.
  await database.close();
  fail((error as Error).message);
}
closeGateway = gateway.close;
const { kind, location } = database.engine;
const replicas = database.replicas ? `; reads also on ${database.replicas.set.describe()}` : '';
server = createGatewayServer(gateway.listener);
closeWebSockets = serveGraphQLOverWebSocket(server, gateway);
server.listen(config.port, () => {
  const { port } = server!.address() as AddressInfo;
  const unset = process.env.CORS_ORIGINS?.trim()
    ? ''
    : ` (CORS_ORIGINS unset, ${config.production ? 'NODE_ENV=production' : 'not production'})`;
  const cors = `cross-origin calls: ${describeCors(config.corsOrigins)}${unset}`;
  console.log(
    `Whiteboard gateway on http://localhost:${port}/graphql (engine: ${kind} at ${location}${replicas}; ${cors})`,
  );
});

if (config.metricsPort !== undefined) {
  metricsServer = createServer(metricsListener(config.metricsToken));
  metricsServer.listen(config.metricsPort, () => {
    console.log(`Metrics on http://localhost:${(metricsServer!.address() as AddressInfo).port}/metrics`);
  });
  exitOnListenError(metricsServer, `metrics port ${config.metricsPort}`);
}
exitOnListenError(server, `port ${config.port}`);
