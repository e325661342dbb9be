import type { GraphQLSchema } from 'graphql';
import { Hono, type Context, type MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { TokenVerifier } from '../auth/token-verifier.js';
import type { Config } from '../config.js';
import type { RateLimits } from '../http/rate-limit/index.js';
import { limitByKind, uploadBodyBytes } from '../files/http.js';
import { compileRoute, linkTagReads, type CompiledRoute } from './compile.js';
import { docsPage } from './docs.js';
import type { GraphQLPipeline } from './execute.js';
import { openApiDocument } from './openapi.js';
import type { Route } from './route.js';
import { methodsOf, restRoutes } from './router.js';
import { routes } from './routes/index.js';

/** A route table compiled against a schema: each operation parsed and validated once. */
export function compileRoutes(schema: GraphQLSchema, table: Route[] = routes): CompiledRoute[] {
  return linkTagReads(table.map((route) => compileRoute(route, schema)));
}

export const OPENAPI_PATH = '/api/openapi.json';

/**
 * The body limit of the routes. A body that declares its length is judged by the header alone, as
 * on `/graphql` (Node's HTTP parser delivers exactly that many bytes): Hono's middleware first asks
 * for the body's stream, which builds the whole Fetch Request with its AbortSignal (a tenth of a
 * PUT's CPU, BENCHMARKS.md) where the route's own read takes the body from the socket. A chunked
 * body, which declares none, is counted by Hono's as it streams.
 */
function limit(maxSize: number): MiddlewareHandler {
  const tooLarge = (c: Context) => c.json({ detail: `Request body larger than ${maxSize} bytes` }, 413);
  const counted = bodyLimit({ maxSize, onError: tooLarge });
  return (c, next) => {
    const length = c.req.header('content-length');
    if (length === undefined || c.req.header('transfer-encoding') !== undefined) return counted(c, next);
    return Number(length) > maxSize ? Promise.resolve(tooLarge(c)) : next();
  };
}

/** The legacy REST v1 layer: every route of the table, `/api/openapi.json` and the `/docs` page; and the methods each path answers. */
export function restApi(options: {
  schema: GraphQLSchema;
  yoga: GraphQLPipeline;
  config: Config;
  /** Charges each call to its key's bucket. @default undefined: no rate limit */
  rateLimits?: RateLimits;
  /** Verifies bearer tokens. @default undefined: API keys only */
  tokens?: TokenVerifier;
  /** @default the whole table of routes/index.ts */
  routes?: Route[];
}): { router: Hono; methodsAt(pathname: string): string[] } {
  const compiled = compileRoutes(options.schema, options.routes);
  let openapi: string | undefined;
  const app = new Hono();
  app.use(
    '/api/*',
    limitByKind(limit(options.config.maxBodyBytes), limit(uploadBodyBytes(options.config.maxUploadBytes))),
  );
  // Built on first request: start-up does not pay for a document most processes never serve.
  app.get(OPENAPI_PATH, (c) =>
    c.body((openapi ??= JSON.stringify(openApiDocument(compiled))), 200, { 'Content-Type': 'application/json' }),
  );
  app.route('/', docsPage());
  app.route(
    '/',
    restRoutes(
      compiled,
      options.yoga,
      options.rateLimits && { rateLimits: options.rateLimits, schema: options.schema },
      options.tokens,
    ),
  );
  return { router: app, methodsAt: methodsOf(compiled) };
}
