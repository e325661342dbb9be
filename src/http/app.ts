import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { GraphQLError, NoSchemaIntrospectionCustomRule, type GraphQLSchema } from 'graphql';
import { PothosValidationError } from '@pothos/core';
import { createYoga, maskError as maskErrorByDefault, type Plugin, type YogaServerInstance } from 'graphql-yoga';
import type { Config } from '../config.js';
import { prisma } from '../db/index.js';
import { createContext, type Context } from '../schema/context.js';
import { GRAPHIQL_ASSETS_PATH, graphiqlAssets, renderGraphiQL } from './graphiql.js';
import { operationLimits } from './limits.js';
import { fileRoutes, limitByKind, uploadBodyBytes } from '../files/http.js';
import { FileStore, useFileStore } from '../files/store.js';
import { filesPath } from '../schema/files.js';
import { restApi } from '../rest/index.js';
import { useReadPlans } from '../read-plans/plugin.js';

const READY_TIMEOUT_MS = 2_000;

// graphql-js ships the rule; it rejects __schema and __type but leaves __typename alone.
const disableIntrospection: Plugin = {
  onValidate: ({ addValidationRule }) => addValidationRule(NoSchemaIntrospectionCustomRule),
};

/** Pothos refuses malformed arguments (a global id of the wrong type, say) with its own error: the caller's fault, so it is shown. */
function maskError(error: unknown, message: string, isDev?: boolean): Error {
  const original = error instanceof GraphQLError ? error.originalError : undefined;
  if (original instanceof PothosValidationError) {
    return new GraphQLError(original.message, { nodes: (error as GraphQLError).nodes, path: (error as GraphQLError).path, extensions: { code: 'BAD_USER_INPUT', http: { status: 400 } } });
  }
  return maskErrorByDefault(error, message, isDev);
}

/** `SELECT 1`, failing if the database does not answer within READY_TIMEOUT_MS (a probe must not hang). */
async function databaseAnswers(): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('timed out')), READY_TIMEOUT_MS);
  });
  try {
    await Promise.race([prisma().$queryRaw`SELECT 1`, timeout]);
    return true;
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}

/** The gateway's HTTP application, built apart from listening so tests can call `app.request`. */
export function createApp(options: { schema: GraphQLSchema; config: Config }): {
  app: Hono;
  yoga: YogaServerInstance<{}, Context>;
} {
  const { schema, config } = options;
  const yoga = createYoga<{}, Context>({
    schema,
    context: createContext,
    graphqlEndpoint: '/graphql',
    // Errors that are not GraphQLErrors (bugs, database failures) reach clients as "Unexpected error."
    maskedErrors: { maskError },
    landingPage: false,
    // Every request needs a key; GraphiQL's header editor starts with the one to fill in.
    graphiql: config.graphiql && { headers: JSON.stringify({ 'X-API-KEY': '<your API key>' }, null, 2) },
    renderGraphiQL,
    // Read plans come last: an operation they answer has passed every limit first.
    plugins: [...operationLimits(config), ...(config.introspection ? [] : [disableIntrospection]), ...(config.readPlans ? [useReadPlans()] : [])],
  });

  const app = new Hono();
  app.get('/health', (c) => c.json({ status: 'ok' }));
  app.get('/ready', async (c) =>
    (await databaseAnswers()) ? c.json({ status: 'ready' }) : c.json({ status: 'unavailable' }, 503),
  );
  const limit = (maxSize: number) => bodyLimit({ maxSize, onError: (c) => c.json({ errors: [{ message: `Request body larger than ${maxSize} bytes`, extensions: { code: 'PAYLOAD_TOO_LARGE' } }] }, 413) });
  app.on(
    ['GET', 'POST', 'OPTIONS'],
    '/graphql',
    limitByKind(limit(config.maxBodyBytes), limit(uploadBodyBytes(config.maxUploadBytes))),
    (c) => yoga.fetch(c.req.raw),
  );
  useFileStore(new FileStore(config.filesDir, config.maxUploadBytes));
  app.route(filesPath, fileRoutes());
  if (config.graphiql) app.route(GRAPHIQL_ASSETS_PATH, graphiqlAssets());
  // The legacy REST v1 routes, /api/openapi.json and /docs, all running through `yoga`.
  app.route('/', restApi({ schema, yoga, config }));
  app.notFound((c) => c.json({ detail: 'Not Found' }, 404));
  app.onError((error, c) => {
    console.error(error);
    return c.json({ detail: 'Internal Server Error' }, 500);
  });
  return { app, yoga };
}
