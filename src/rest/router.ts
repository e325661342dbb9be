import { Hono, type Context } from 'hono';
import { resolvePrincipal } from '../auth/principal.js';
import type { CompiledRoute } from './compile.js';
import { invalid, notAuthenticated, type Answer } from './errors.js';
import { execute, type GraphQLPipeline } from './execute.js';
import { readRequest } from './request.js';

const honoPath = (path: string) => path.replace(/\{(\w+)\}/g, ':$1');
const pattern = (path: string) => new RegExp(`^${path.replace(/\{\w+\}/g, '[^/]+')}$`);

/** A sort key putting, at the first segment where two paths differ, a fixed one before a placeholder: `/v1/filter/` before `/v1/{id}/`. */
const specificity = (path: string) => path.split('/').map((segment) => (segment.startsWith('{') ? '1' : `0${segment}`)).join('/');
const bySpecificity = (a: CompiledRoute, b: CompiledRoute) => {
  const [left, right] = [specificity(a.path), specificity(b.path)];
  return left < right ? -1 : left > right ? 1 : 0;
};

function write(c: Context, answer: Answer): Response {
  if (answer.body === undefined) return c.body(null, answer.status as 204, answer.headers);
  return c.json(answer.body, answer.status as 200, answer.headers);
}

async function handle(c: Context, route: CompiledRoute, yoga: GraphQLPipeline): Promise<Answer> {
  // The key first, so a caller without one learns nothing about the parameters. The principal
  // resolver is the one the GraphQL context uses; its cache makes the second call a lookup.
  if (!route.public && !(await resolvePrincipal(c.req.header('x-api-key')))) return notAuthenticated();
  const read = await readRequest(route, c.req);
  if ('errors' in read) return invalid(read.errors);
  return execute(yoga, route, c.req.raw, read.variables, c.req.param());
}

/** Mounts every route of the table, and answers 405, a slash redirect or 404 for the rest of /api. */
export function restRoutes(routes: CompiledRoute[], yoga: GraphQLPipeline): Hono {
  const app = new Hono();
  for (const route of [...routes].sort(bySpecificity)) {
    app.on(route.method, honoPath(route.path), async (c) => write(c, await handle(c, route, yoga)));
  }
  const known = routes.map((route) => ({ method: route.method, pattern: pattern(route.path) }));
  app.all('/api/*', (c) => {
    const { pathname, search } = new URL(c.req.url);
    const allowed = known.filter((route) => route.pattern.test(pathname)).map((route) => route.method);
    if (allowed.length) return c.json({ detail: 'Method Not Allowed' }, 405, { Allow: [...new Set(allowed)].join(', ') });
    // As FastAPI does: a path that only lacks its trailing slash is redirected to it.
    if (known.some((route) => route.pattern.test(`${pathname}/`))) return c.redirect(`${pathname}/${search}`, 307);
    return c.json({ detail: 'Not Found' }, 404);
  });
  return app;
}
