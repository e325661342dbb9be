import type { IncomingMessage } from 'node:http';
import type { GraphQLSchema } from 'graphql';
import { Hono, type Context } from 'hono';
import { authenticateRequest } from '../auth/credentials.js';
import type { TokenVerifier } from '../auth/token-verifier.js';
import { addressOf, rateLimitHeaders, type RateLimits } from '../http/rate-limit/index.js';
import { REPLAYED_HEADER, replayed } from '../http/idempotency.js';
import type { CompiledRoute } from './compile.js';
import {
  invalid,
  notAuthenticated,
  tokenRefused,
  tooManyRequests,
  unsupportedMediaType,
  type Answer,
} from './errors.js';
import { execute, type GraphQLPipeline } from './execute.js';
import { readRequest, refusedBodyType } from './request.js';

const honoPath = (path: string) => path.replace(/\{(\w+)\}/g, ':$1');
const pattern = (path: string) => new RegExp(`^${path.replace(/\{\w+\}/g, '[^/]+')}$`);

/** A sort key putting, at the first segment where two paths differ, a fixed one before a placeholder: `/v1/filter/` before `/v1/{id}/`. */
const specificity = (path: string) =>
  path
    .split('/')
    .map((segment) => (segment.startsWith('{') ? '1' : `0${segment}`))
    .join('/');
const bySpecificity = (a: CompiledRoute, b: CompiledRoute) => {
  const [left, right] = [specificity(a.path), specificity(b.path)];
  return left < right ? -1 : left > right ? 1 : 0;
};

/** The Node request under Hono's node-server adapter (absent for requests answered in process). */
export const incomingOf = (c: Context) => (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;

/** Writes an answer, with the RateLimit-* headers when the request was charged, and Idempotent-Replayed on a stored answer. */
export function write(c: Context, answer: Answer, rateLimits?: RateLimits): Response {
  const decision = rateLimits?.decisions.get(c.req.raw);
  let headers = decision ? { ...answer.headers, ...rateLimitHeaders(decision) } : answer.headers;
  if (replayed.has(c.req.raw)) headers = { ...headers, [REPLAYED_HEADER]: 'true' };
  if (answer.json !== undefined)
    return c.body(answer.json, answer.status as 200, { ...headers, 'Content-Type': 'application/json' });
  if (answer.body === undefined) return c.body(null, answer.status as 204, headers);
  return c.json(answer.body, answer.status as 200, headers);
}

/** The rate limit of the routes, and the schema their operations are measured against. */
export interface RestRateLimits {
  rateLimits: RateLimits;
  schema: GraphQLSchema;
}

async function handle(
  c: Context,
  route: CompiledRoute,
  yoga: GraphQLPipeline,
  limited: RestRateLimits | undefined,
  tokens: TokenVerifier | undefined,
): Promise<Answer> {
  // The credential first, so a caller without one learns nothing about the parameters. The principal
  // resolver is the one the GraphQL context uses; its cache makes the second call a lookup.
  const { principal, refused } = await authenticateRequest(
    c.req.header('x-api-key'),
    c.req.header('authorization'),
    tokens,
  );
  // Without a valid credential, a call is charged a point to its address: a refusal, or a public route's call.
  if (!principal) {
    const decision = await limited?.rateLimits.chargeAddress(c.req.raw, addressOf(incomingOf(c)));
    if (decision && !decision.admitted) return tooManyRequests(decision, 1);
    // A refused bearer token is 401 even on a public route: the caller meant to sign in. A key keeps the legacy 403.
    if (refused?.bearer) return tokenRefused(refused);
    if (!route.public) return notAuthenticated();
  }
  const expected = refusedBodyType(route, c.req);
  if (expected) return unsupportedMediaType(expected);
  const read = await readRequest(route, c.req);
  if ('errors' in read) return invalid(read.errors);
  if (principal && limited) {
    // Charged once for the call, whatever operations it runs (a row check, then the route's own).
    const charge = limited.rateLimits.chargeOperation(
      c.req.raw,
      principal,
      limited.schema,
      route.document,
      route.operationName,
      read.variables,
    );
    const decision = await charge?.decision;
    if (decision && !decision.admitted) return tooManyRequests(decision, charge!.cost);
  }
  return execute(yoga, route, c.req.raw, read.variables, c.req.param());
}

/** The methods the routes answer at a path (none: no route has it), for a 405's `Allow` and a CORS preflight. */
export function methodsOf(routes: CompiledRoute[]): (pathname: string) => string[] {
  const known = routes.map((route) => ({ method: route.method, pattern: pattern(route.path) }));
  return (pathname) => [...new Set(known.filter((route) => route.pattern.test(pathname)).map((route) => route.method))];
}

/** Mounts every route of the table, and answers 405, a slash redirect or 404 for the rest of /api. */
export function restRoutes(
  routes: CompiledRoute[],
  yoga: GraphQLPipeline,
  limited?: RestRateLimits,
  tokens?: TokenVerifier,
): Hono {
  const app = new Hono();
  for (const route of [...routes].sort(bySpecificity)) {
    app.on(route.method, honoPath(route.path), async (c) =>
      write(c, await handle(c, route, yoga, limited, tokens), limited?.rateLimits),
    );
  }
  const methodsAt = methodsOf(routes);
  app.all('/api/*', (c) => {
    const { pathname, search } = new URL(c.req.url);
    const allowed = methodsAt(pathname);
    if (allowed.length) return c.json({ detail: 'Method Not Allowed' }, 405, { Allow: allowed.join(', ') });
    // As FastAPI does: a path that only lacks its trailing slash is redirected to it.
    if (methodsAt(`${pathname}/`).length) return c.redirect(`${pathname}/${search}`, 307);
    return c.json({ detail: 'Not Found' }, 404);
  });
  return app;
}
