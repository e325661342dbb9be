import type { ValidationItem } from './coerce.js';
import type { CompiledRoute } from './compile.js';
import { snakeCase } from './names.js';

/** A REST answer before it is written: status and JSON body. */
export interface Answer {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

/** An error of a GraphQL response, as Yoga formats it. */
export interface GraphQLErrorJson {
  message: string;
  extensions?: { code?: string; field?: string };
}

// The one place where GraphQL error codes become HTTP statuses and FastAPI bodies.
const statusOfCode: Record<string, number> = {
  UNAUTHENTICATED: 403,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  BAD_USER_INPUT: 422,
  OPERATION_TOO_COMPLEX: 400,
  PAYLOAD_TOO_LARGE: 413,
};

export const notAuthenticated = (): Answer => ({ status: 403, body: { detail: 'Not authenticated' } });
export const notFound = (): Answer => ({ status: 404, body: { detail: 'Not found' } });
export const invalid = (items: ValidationItem[]): Answer => ({ status: 422, body: { detail: items } });

export function notImplemented(route: CompiledRoute): Answer {
  const why = route.notBuilt.length ? `GraphQL ${route.notBuilt.join(', ')} is not built` : route.invalid.join('; ');
  return { status: 501, body: { detail: `Not implemented yet: ${route.name} (${why})` } };
}

/** The request value behind a GraphQL input path: a parameter of the route, else a body field. */
function locOf(route: CompiledRoute, field: string): (string | number)[] {
  const param = route.params.find((candidate) => candidate.target?.join('.') === field);
  if (param) return [param.in, param.name];
  return ['body', ...field.replace(/^input\./, '').split('.').map(snakeCase)];
}

function valueAt(variables: Record<string, unknown>, field: string): unknown {
  return field.split('.').reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], variables);
}

/** The answer to a GraphQL error: the status of its code, with FastAPI's body. */
export function fromGraphQLError(error: GraphQLErrorJson, route: CompiledRoute, variables: Record<string, unknown>): Answer {
  const code = error.extensions?.code ?? '';
  const status = statusOfCode[code];
  if (code === 'UNAUTHENTICATED') return notAuthenticated();
  if (code === 'NOT_FOUND') return notFound();
  if (code === 'BAD_USER_INPUT') {
    const field = error.extensions?.field ?? route.body ?? 'input';
    return invalid([{ type: 'value_error', loc: locOf(route, field), msg: `Value error, ${error.message}`, input: valueAt(variables, field) ?? null }]);
  }
  if (status) return { status, body: { detail: error.message } };
  // Masked errors and anything unexpected: the log has the cause, the caller a plain 500.
  return { status: 500, body: { detail: 'Internal Server Error' } };
}
