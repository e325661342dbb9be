import type { IncomingHttpHeaders, RequestListener } from 'node:http';
import type { CorsOrigins } from '../config.js';

/** What a cross-origin caller may do at one path: the methods and request headers it accepts, the response headers it lets a page read. */
export interface CorsRule {
  methods: readonly string[];
  headers: readonly string[];
  exposed: readonly string[];
}

/** The request headers of both doors: the key or bearer token, a JSON body, the caller's request id, a mutation's idempotency key. */
export const API_REQUEST_HEADERS = ['X-API-KEY', 'Authorization', 'Content-Type', 'X-Request-Id', 'Idempotency-Key'];
/** What a page may read of an answer of either door: the request id, a refused token's challenge, the rate limit, a replayed answer. */
export const API_EXPOSED_HEADERS = [
  'X-Request-Id',
  'WWW-Authenticate',
  'RateLimit-Limit',
  'RateLimit-Remaining',
  'RateLimit-Reset',
  'Retry-After',
  'Idempotent-Replayed',
];

const graphqlRule: CorsRule = { methods: ['GET', 'POST'], headers: API_REQUEST_HEADERS, exposed: API_EXPOSED_HEADERS };
/** A list's total, over all pages; a row's version as its ETag. */
const restExposed = [...API_EXPOSED_HEADERS, 'X-Total-Count', 'ETag'];
/** The conditionals of a row's routes (src/rest/conditionals.ts). */
const restRequestHeaders = [...API_REQUEST_HEADERS, 'If-Match', 'If-None-Match'];
const documentRule: CorsRule = { methods: ['GET'], headers: ['X-Request-Id'], exposed: ['X-Request-Id'] };
const filesRule: CorsRule = {
  methods: ['GET', 'HEAD'],
  headers: ['Range', 'If-None-Match', 'X-Request-Id'],
  exposed: ['X-Request-Id', 'ETag', 'Accept-Ranges', 'Content-Range', 'Content-Disposition'],
};

/** The rule of each path CORS covers: `/graphql`, the OpenAPI document, files, and every REST route (the methods its routes answer, the list's total exposed). */
export function corsRules(paths: {
  graphql: string;
  openApi: string;
  files: string;
  restMethodsAt(pathname: string): string[];
}): (path: string) => CorsRule | undefined {
  return (path) => {
    if (path === paths.graphql) return graphqlRule;
    if (path === paths.openApi) return documentRule;
    if (path.startsWith(paths.files)) return filesRule;
    // A path that only lacks its trailing slash is redirected to it: a page follows the redirect as any client does.
    const methods = paths.restMethodsAt(path.endsWith('/') ? path : `${path}/`);
    return methods.length ? { methods, headers: restRequestHeaders, exposed: restExposed } : undefined;
  };
}

/** How long a browser may keep a preflight's answer, in seconds (Chromium keeps it at most 2 hours). */
const PREFLIGHT_MAX_AGE = '600';

/**
 * Whether a browser page of `origin` may call the gateway: any origin (`*`), or one of the list.
 * Credentials are never allowed: keys travel in a header a page sets itself, not in cookies.
 */
export function allowsOrigin(origins: CorsOrigins, origin: string): boolean {
  return origins === '*' || origins.includes(origin);
}

/** What the start line says of the policy. */
export function describeCors(origins: CorsOrigins): string {
  if (origins === '*') return 'from any origin';
  return origins.length ? `from ${origins.join(', ')} only` : 'none';
}

/** The WebSocket handshake's check: no Origin (not a browser), the gateway's own origin, or an allowed one. */
export function allowsUpgrade(origins: CorsOrigins, headers: IncomingHttpHeaders): boolean {
  const { origin, host } = headers;
  if (origin === undefined) return true;
  let own: boolean;
  try {
    own = new URL(origin).host === host;
  } catch {
    return false;
  }
  return own || allowsOrigin(origins, origin);
}

/**
 * One CORS policy in front of every door: a preflight to a path that has a rule is answered here
 * (204, with the rule's methods and headers when the origin is allowed, with none otherwise); any
 * other request from an allowed origin gets `Access-Control-Allow-Origin` and the exposed headers.
 * An origin that is not allowed gets no CORS header at all, so the browser keeps the answer from the page.
 */
export function withCors(
  origins: CorsOrigins,
  ruleAt: (path: string) => CorsRule | undefined,
  listener: RequestListener,
): RequestListener {
  return (request, response) => {
    const { origin } = request.headers;
    const rule = origin === undefined ? undefined : ruleAt(new URL(request.url ?? '/', 'http://gateway').pathname);
    if (!rule || origin === undefined) return listener(request, response);
    const allowed = allowsOrigin(origins, origin);
    // A list answers each origin differently, so caches must keep answers apart.
    if (origins !== '*') response.setHeader('Vary', 'Origin');
    if (allowed) response.setHeader('Access-Control-Allow-Origin', origins === '*' ? '*' : origin);
    if (request.method === 'OPTIONS' && request.headers['access-control-request-method'] !== undefined) {
      if (allowed) {
        response.setHeader('Access-Control-Allow-Methods', rule.methods.join(', '));
        response.setHeader('Access-Control-Allow-Headers', rule.headers.join(', '));
        response.setHeader('Access-Control-Max-Age', PREFLIGHT_MAX_AGE);
      }
      response.writeHead(204).end();
      return;
    }
    if (allowed) response.setHeader('Access-Control-Expose-Headers', rule.exposed.join(', '));
    listener(request, response);
  };
}
