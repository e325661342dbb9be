import type { CompiledRoute } from './compile.js';
import { fromGraphQLError, notFound, type Answer, type GraphQLErrorJson } from './errors.js';

/** Anything Yoga's `fetch` accepts: the REST layer needs no more of it. */
export interface GraphQLFetch {
  fetch(request: Request): Response | Promise<Response>;
}

interface GraphQLResult {
  data?: Record<string, unknown> | null;
  errors?: GraphQLErrorJson[];
}

/** Moves the files out of the variables (they become parts of a multipart request), leaving nulls. */
function takeFiles(node: unknown, path: string[], files: [string, File][]): void {
  if (typeof node !== 'object' || node === null) return;
  for (const [key, value] of Object.entries(node)) {
    if (value instanceof File) {
      files.push([['variables', ...path, key].join('.'), value]);
      (node as Record<string, unknown>)[key] = null;
    } else {
      takeFiles(value, [...path, key], files);
    }
  }
}

/**
 * The synthetic `POST /graphql` a route sends through Yoga: the operation as written in the table (so
 * Yoga's parse and validation caches answer), its variables, and the caller's key. With files, it
 * follows the GraphQL multipart request spec, as a browser upload would.
 */
function graphqlRequest(route: CompiledRoute, caller: Request, variables: Record<string, unknown>): Request {
  const headers = new Headers({ accept: 'application/graphql-response+json' });
  const key = caller.headers.get('x-api-key');
  if (key) headers.set('x-api-key', key);
  const url = new URL('/graphql', caller.url);
  const files: [string, File][] = [];
  takeFiles(variables, [], files);
  const operation = JSON.stringify({ query: route.operation, operationName: route.operationName, variables });
  if (!files.length) {
    headers.set('content-type', 'application/json');
    return new Request(url, { method: 'POST', headers, body: operation });
  }
  const form = new FormData();
  form.set('operations', operation);
  form.set('map', JSON.stringify(Object.fromEntries(files.map(([path], index) => [String(index), [path]]))));
  files.forEach(([, file], index) => form.set(String(index), file));
  return new Request(url, { method: 'POST', headers, body: form });
}

/** Shapes the data of a successful operation into the route's answer; see `kind` in route.ts. */
function shape(route: CompiledRoute, data: Record<string, unknown>): Answer {
  const value = data[route.rootKey] as Record<string, unknown> | null;
  const status = route.status ?? 200;
  switch (route.kind) {
    case 'list':
    case 'filter': {
      const connection = value as { totalCount: number; edges: { node: unknown }[] };
      return { status, body: connection.edges.map((edge) => edge.node), headers: { 'X-Total-Count': String(connection.totalCount) } };
    }
    case 'info':
      return { status, body: { total_count: (value as { totalCount: number }).totalCount, fields: route.infoFields } };
    case 'object':
      return value == null ? notFound() : { status, body: value };
    case 'payload': {
      const inner = value?.[route.payloadKey!];
      return inner == null ? notFound() : { status, body: inner };
    }
    case 'empty':
      return { status: route.status ?? 204 };
  }
}

/** Runs a route's operation through the same Yoga pipeline as `/graphql` and answers in the legacy form. */
export async function execute(yoga: GraphQLFetch, route: CompiledRoute, caller: Request, variables: Record<string, unknown>): Promise<Answer> {
  const response = await yoga.fetch(graphqlRequest(route, caller, variables));
  const result = (await response.json()) as GraphQLResult;
  // A REST answer cannot be partial: the first error decides.
  if (result.errors?.length) return fromGraphQLError(result.errors[0], route, variables);
  return shape(route, result.data ?? {});
}
