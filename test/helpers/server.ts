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
  database: Database;
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

/** The whole gateway on a real port over this test file's own seeded database. */
export async function startTestServer(env: NodeJS.ProcessEnv = {}): Promise<TestServer> {
  const { database, keys, drop } = await openTestDatabase();
  const instance = await startInstance(env);
  const { url, gateway } = instance;

  return {
    url,
    gateway,
    database,
    keys,
    graphql: (query, variables, key = keys.owner) => postGraphQL(url, query, { variables, key }),
    async countStatements(work) {
      const statements: string[] = [];
      const listener = (sql: string) => statements.push(sql);
      database.onQuery.add(listener);
      try {
        return { result: await work(), statements };
      } finally {
        database.onQuery.delete(listener);
      }
    },
    async close() {
      await instance.close();
      await drop();
    },
  };
}
