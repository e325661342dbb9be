import type { RequestListener } from 'node:http';
import { Hono } from 'hono';
import { getRequestListener } from '@hono/node-server';
import { NoSchemaIntrospectionCustomRule, type GraphQLSchema } from 'graphql';
import { createYoga, type Plugin, type YogaServerInstance } from 'graphql-yoga';
import { TokenVerifier } from '../auth/token-verifier.js';
import type { Config, CorsOrigins } from '../config.js';
import { db } from '../db/index.js';
import { databaseTimeout, isDatabaseUnavailable } from '../db/unavailable.js';
import type { Context } from '../schema/context.js';
import { contextFactory } from './context.js';
import { challengeMiddleware, useChallenges } from './challenges.js';
import { useOperationGuard } from './guard.js';
import { principalRequired } from './principal-required.js';
import { LiveHub } from '../live/hub.js';
import { GRAPHIQL_ASSETS_PATH, graphiqlAssets, graphiqlOptions, renderGraphiQL } from './graphiql.js';
import { graphqlErrorReporting, maskError } from './graphql-errors.js';
import { operationLimits, operationMeasure } from './limits.js';
import { storableArguments } from './storable-arguments.js';
import { fileRoutes } from '../files/http.js';
import { bodyLimits } from './body-limits.js';
import { useDocumentBounds } from './document-bounds.js';
import { useIdempotencyKeys } from './idempotency.js';
import { useFileStore } from '../files/store.js';
import { DatabaseFileStore } from '../files/db-store.js';
import { DirectoryFileStore } from '../files/directory-store.js';
import { filesPath } from '../schema/files.js';
import { OPENAPI_PATH, restApi } from '../rest/index.js';
import { corsRules, withCors } from './cors.js';
import { timedOutAnswer, unavailable } from '../rest/errors.js';
import { usePlans } from '../read-plans/plugin.js';
import { useLiveWake } from './live-wake.js';
import type { WebSocketLimits } from './websocket-door.js';
import { useReadReplicas } from './read-replicas.js';
import { useRowLevelSecurity } from './row-level-security.js';
import { useUnansweredStreams } from './unanswered-streams.js';
import { useEventIds } from './event-ids.js';
import { createRateLimits } from './rate-limit/index.js';
import { rateLimited, useRateLimitHeaders } from './rate-limit/plugin.js';
import { loadTrustedDocuments, useTrustedDocuments, type TrustedDocuments } from './trusted-documents.js';
import { metricsOn, noteRoute, observabilityPlugins, observedListener } from '../observability/index.js';
import { logError, yogaLogger } from '../observability/logger.js';
import { reportUnavailable, watchOutages } from '../observability/outage.js';
import { measure as collectMetrics, scrape } from '../observability/metrics.js';
import { startWebhooks } from '../webhooks/index.js';
import { logFeed } from '../webhooks/log-feed.js';

// graphql-js ships the rule; it rejects __schema and __type but leaves __typename alone.
const disableIntrospection: Plugin = {
  onValidate: ({ addValidationRule }) => addValidationRule(NoSchemaIntrospectionCustomRule),
};

/** `SELECT 1` on a connection of its own, within a poll's answer time: busy requests never fail the probe, and it never hangs. */
async function databaseAnswers(): Promise<boolean> {
  try {
    await db().engine.poll('SELECT 1');
    return true;
  } catch {
    return false;
  }
}

const graphqlPath = '/graphql';

/** How long a keyed request may run: its statements end by its start plus the bounds (db/pool.ts), and a second's margin. */
const leaseMs = ({ databaseBounds: { connectTimeoutMs, statementTimeoutMs } }: Config) =>
  connectTimeoutMs + (statementTimeoutMs || 60_000) + 1_000;

export interface Gateway {
  yoga: YogaServerInstance<Record<string, unknown>, Context>;
  /** The instance's subscriptions. */
  live: LiveHub;
  /** The only documents /graphql runs (TRUSTED_DOCUMENTS); undefined: any. */
  trustedDocuments: TrustedDocuments | undefined;
  /** The origins whose pages may call either door and open a WebSocket (CORS_ORIGINS). */
  corsOrigins: CorsOrigins;
  /** Verifies bearer tokens of the OpenID Connect issuers (OIDC_ISSUER); undefined: API keys only. */
  tokens: TokenVerifier | undefined;
  /** What the WebSocket door holds (src/http/websocket.ts). */
  webSocket: WebSocketLimits;
  /** REST, files, docs and probes. */
  router: Hono;
  /** What the node:http server runs: `/graphql` straight to Yoga's own Node adapter, the rest to the router. */
  listener: RequestListener;
  /** Answers a request in process as the listener would; for tests. */
  request(path: string, init?: RequestInit): Promise<Response>;
  /** Reports what the rate limit spent and closes its store; the server has stopped taking requests. */
  close(): Promise<void>;
}

const isGraphQL = (url: string) => url === graphqlPath || url.startsWith(`${graphqlPath}?`);

/**
 * The gateway's HTTP application, built apart from listening so tests can call `request`. `demoKey`:
 * the demo owner's secret, which GraphiQL opens with (main.ts says when the server knows it).
 */
export function createApp(options: { schema: GraphQLSchema; config: Config; demoKey?: string }): Gateway {
  const { schema, config, demoKey } = options;
  // Each instance listens for committed changes on its own, and fans them out to its subscribers.
  const live = new LiveHub(
    () => db().engine,
    config.maxSubscriptionsPerKey,
    config.livePollMs,
    config.changeLogRetentionDays,
  );
  // Each instance delivers webhooks too: any instance takes any due delivery.
  const webhooks =
    config.webhooks &&
    startWebhooks(config.webhooks, {
      feed: logFeed(() => db().engine),
      retentionDays: config.changeLogRetentionDays,
    });
  const metrics = metricsOn(config);
  if (metrics)
    collectMetrics({
      pool: () => db().engine.pool,
      replicas: () => db().replicas?.set.status(),
      subscriptions: () => live.size,
      webhookAttempts: () => webhooks?.webhooks.dispatcher.attempting ?? 0,
    });
  // An outage ends when the primary answers a statement on a connection of its own.
  watchOutages(() => db().engine.poll('SELECT 1'));
  const measure = operationMeasure(config);
  const rateLimits = config.rateLimit && createRateLimits(config.rateLimit, measure);
  const trustedDocuments = config.trustedDocuments ? loadTrustedDocuments(config.trustedDocuments) : undefined;
  const tokens = config.oidc && new TokenVerifier(config.oidc);
  const yoga = createYoga<Record<string, unknown>, Context>({
    schema,
    context: contextFactory(live, tokens, rateLimits, webhooks?.webhooks),
    graphqlEndpoint: graphqlPath,
    // bodyLimits() limits bodies instead, counting only those that declare no length.
    maxRequestBodySize: false,
    // Errors that are not GraphQLErrors reach clients as SERVICE_UNAVAILABLE (the database) or "Unexpected error." (bugs).
    maskedErrors: { maskError },
    landingPage: false,
    graphiql: config.graphiql && graphiqlOptions(demoKey),
    // Yoga's own CORS echoes any origin with credentials; withCors applies CORS_ORIGINS to both doors instead.
    cors: false,
    renderGraphiQL,
    logging: yogaLogger(reportUnavailable),
    // Read plans come last but for the replicas' read around them: an operation they answer has passed every limit and argument check first.
    plugins: [
      ...observabilityPlugins({ metrics }),
      ...(trustedDocuments ? [useTrustedDocuments(trustedDocuments)] : []),
      bodyLimits(config),
      useDocumentBounds(config.maxTokens),
      ...graphqlErrorReporting(),
      useChallenges(tokens !== undefined),
      // Every operation, whatever its kind and door, passes these before anything of it runs.
      useOperationGuard([
        principalRequired,
        operationLimits(measure),
        ...(rateLimits ? [rateLimited(rateLimits)] : []),
        storableArguments,
      ]),
      ...(rateLimits ? [useRateLimitHeaders(rateLimits)] : []),
      useIdempotencyKeys({ ttlHours: config.idempotencyTtlHours, leaseMs: leaseMs(config) }),
      ...(config.introspection ? [] : [disableIntrospection]),
      useLiveWake(live, ...(webhooks ? [webhooks.webhooks.dispatcher] : [])),
      ...(config.readPlans ? [usePlans()] : []),
      ...(config.replicaUrls.length ? [useReadReplicas()] : []),
      ...(config.rowLevelSecurity ? [useRowLevelSecurity()] : []),
      useEventIds(),
      useUnansweredStreams(),
    ],
  });

  const app = new Hono();
  app.use(noteRoute);
  app.use(challengeMiddleware(tokens !== undefined));
  app.get('/health', (c) => c.json({ status: 'ok' }));
  app.get('/ready', async (c) =>
    (await databaseAnswers()) ? c.json({ status: 'ready' }) : c.json({ status: 'unavailable' }, 503),
  );
  useFileStore(
    config.fileStore === 'database'
      ? new DatabaseFileStore(config.maxUploadBytes)
      : new DirectoryFileStore(config.filesDir, config.maxUploadBytes),
  );
  app.route(filesPath, fileRoutes());
  if (config.graphiql) app.route(GRAPHIQL_ASSETS_PATH, graphiqlAssets());
  // On the main port only when guarded by a token; METRICS_PORT serves it apart (main.ts).
  if (metrics && config.metricsPort === undefined) {
    app.get('/metrics', async (c) => {
      const answer = await scrape(c.req.header('authorization'), config.metricsToken);
      return c.body(answer.body, answer.status as 200, {
        'Content-Type': answer.type,
        ...(answer.challenge && { 'WWW-Authenticate': answer.challenge }),
      });
    });
  }
  // The legacy REST v1 routes, /api/openapi.json and /docs, all running through `yoga`.
  const rest = restApi({ schema, yoga, config, rateLimits, tokens });
  app.route('/', rest.router);
  app.notFound((c) => c.json({ detail: 'Not Found' }, 404));
  app.onError((error, c) => {
    if (isDatabaseUnavailable(error)) {
      reportUnavailable(error);
      const answer = unavailable();
      return c.json(answer.body, 503, answer.headers);
    }
    const timeout = databaseTimeout(error);
    if (timeout) {
      const answer = timedOutAnswer(timeout);
      return c.json(answer.body, 504, answer.headers);
    }
    logError(error, 'unexpected error');
    return c.json({ detail: 'Internal Server Error' }, 500);
  });
  // A Fetch Request built per request in front of Yoga cost about 0.4 ms of CPU; Yoga's adapter reads node:http itself.
  const routerListener = getRequestListener(app.fetch);
  return {
    yoga,
    live,
    trustedDocuments,
    corsOrigins: config.corsOrigins,
    tokens,
    webSocket: {
      maxMessageBytes: config.maxBodyBytes,
      initTimeoutMs: config.webSocketInitTimeoutMs,
      unauthenticatedPerAddress: config.webSocketUnauthenticatedPerAddress,
      socketsPerHolder: config.maxSubscriptionsPerKey,
    },
    router: app,
    listener: observedListener(
      withCors(
        config.corsOrigins,
        corsRules({ graphql: graphqlPath, openApi: OPENAPI_PATH, files: filesPath, restMethodsAt: rest.methodsAt }),
        (request, response) =>
          void (isGraphQL(request.url ?? '/') ? yoga(request, response) : routerListener(request, response)),
      ),
      { metrics },
    ),
    request: async (path, init) =>
      isGraphQL(path) ? yoga.fetch(new URL(path, 'http://localhost'), init ?? {}) : app.request(path, init),
    close: async () => {
      watchOutages(undefined);
      live.stop();
      await webhooks?.stop();
      await rateLimits?.close();
    },
  };
}
