import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { createGatewayServer } from '../../src/http/server.js';
import { loadConfig } from '../../src/config.js';
import type { Database } from '../../src/db/index.js';
import { createApp, type Gateway } from '../../src/http/app.js';
import { serveGraphQLOverWebSocket } from '../../src/http/websocket.js';
import { schema } from '../../src/schema/index.js';
import type { DemoKeys } from '../../src/db/seed/keys.js';
import { openTestDatabase } from './database.js';
import { postGraphQL, type GraphQLResponse } from './graphql.js';

export interface TestServer {
  url: string;
  gateway: Gateway;
  /** The test's own database (not the gateway's, where openGatewayDatabase gave one). */
  database: Database;
  /** Its URL, for sessions of a test's own: on PostgreSQL only. */
  databaseUrl?: string;
  /** The demo roles' API keys. */
  keys: DemoKeys;
  /** Sends a GraphQL operation over HTTP, as a client would, with the demo owner's key unless another (or null) is given. */
  graphql<T = Record<string, any>>(
    query: string,
    variables?: Record<string, unknown>,
    key?: string | null,
  ): Promise<GraphQLResponse<T>>;
  /** Runs `work` and counts the SQL statements Prisma sent meanwhile. */
  countStatements<T>(work: () => Promise<T>): Promise<{ result: T; statements: string[] }>;
  close(): Promise<void>;
}

/** The statements of a request itself: a key's `last_used_at` bookkeeping runs off the request's path and may land in any window. */
export const ofTheRequest = (statements: string[]) => statements.filter((sql) => !/^UPDATE\b.*"api_key"/.test(sql));

/** One gateway instance (HTTP and WebSocket) on a real port over the open database. */
export async function startInstance(
  env: NodeJS.ProcessEnv = {},
): Promise<{ url: string; gateway: Gateway; close(): Promise<void> }> {
  const gateway = createApp({ schema, config: loadConfig(env) });
  const server: Server = createGatewayServer(gateway.listener);
  const closeWebSockets = serveGraphQLOverWebSocket(server, gateway);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    gateway,
    async close() {
      await closeWebSockets();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await gateway.close();
    },
  };
}

/** Where startTestServer's database is, and what the gateway reaches it through. */
export interface TestServerDatabase {
  /** A PostgreSQL server to make the database on, whatever the engine of the other files (postgresServerUrl()): TEST_DATABASE_URL's engine by default. */
  serverUrl?: string;
  /** Opens the database the gateway uses (through a proxy, with bounds of its own) from the test's database's URL; closed again before that is dropped. */
  openGatewayDatabase?(databaseUrl: string): Promise<Database>;
}

/** The whole gateway on a real port over this test file's own seeded database. */
export async function startTestServer(
  env: NodeJS.ProcessEnv = {},
  { serverUrl = process.env.TEST_DATABASE_URL, openGatewayDatabase }: TestServerDatabase = {},
): Promise<TestServer> {
  const { database, keys, url: databaseUrl, drop } = await openTestDatabase(serverUrl);
  let gatewayDatabase: Database | undefined;
  let instance: Awaited<ReturnType<typeof startInstance>>;
  try {
    // Opened last, so it is the process's database, the one the gateway uses.
    gatewayDatabase = await openGatewayDatabase?.(databaseUrl!);
    instance = await startInstance(env);
  } catch (error) {
    await gatewayDatabase?.close();
    await drop();
    throw error;
  }
  const { url, gateway } = instance;
  const counted = gatewayDatabase ?? database;

  return {
    url,
    gateway,
    database,
    databaseUrl,
    keys,
    graphql: (query, variables, key = keys.owner) => postGraphQL(url, query, { variables, key }),
    async countStatements(work) {
      const statements: string[] = [];
      const listener = (sql: string) => statements.push(sql);
      counted.onQuery.add(listener);
      try {
        return { result: await work(), statements };
      } finally {
        counted.onQuery.delete(listener);
      }
    },
    async close() {
      await instance.close();
      await gatewayDatabase?.close();
      await drop();
    },
  };
}
