import { bearerChallenge, type Refusal, type RefusalReason } from '../auth/refusals.js';
import { boundedMessage, quotable } from '../http/quoting.js';
import { rateLimitedMessage, type Decision } from '../http/rate-limit/index.js';
import { logError } from '../observability/logger.js';
import { countErrors } from '../observability/metrics.js';
import type { DatabaseTimeout } from '../db/unavailable.js';
import { databaseTimedOut, RETRY_AFTER_SECONDS, unavailableMessage } from '../schema/errors.js';
import type { ValidationItem } from './coerce.js';
import type { CompiledRoute } from './compile.js';
import { snakeCase } from './names.js';

/** A REST answer before it is written: status and JSON body. */
export interface Answer {
  status: number;
  body?: unknown;
  /** The body already written as JSON text, sent as it is (instead of `body`). */
  json?: string;
  headers?: Record<string, string>;
}

/** An error of a GraphQL response, as Yoga formats it. */
export interface GraphQLErrorJson {
  message: string;
  extensions?: {
    code?: string;
    field?: string;
    reason?: RefusalReason;
    http?: { status?: number; headers?: Record<string, string> };
  };
}

export const notAuthenticated = (): Answer => ({ status: 403, body: { detail: 'Not authenticated' } });
/** A refused bearer token: 401 (403 without the gateway's scopes) with the reason in the legacy body and RFC 6750's challenge. */
export const tokenRefused = (refused: Refusal): Answer => ({
  status: refused.status,
  body: { detail: refused.message },
  headers: { 'WWW-Authenticate': bearerChallenge(refused) },
});
export const notFound = (): Answer => ({ status: 404, body: { detail: 'Not found' } });
/** If-Match named none of the row's current tags (RFC 9110 13.1.1): nothing changed; `current` is its tag now, when known. */
export const preconditionFailed = (current?: string): Answer => ({
  status: 412,
  body: { detail: 'Precondition Failed: the row has changed since the version If-Match names; read it again' },
  headers: current ? { ETag: current } : undefined,
});
export const unsupportedMediaType = (expected: string): Answer => ({
  status: 415,
  body: { detail: `Unsupported Media Type: send the body as ${expected}` },
});
/** 422 with FastAPI's items; each echoes a bounded copy of the value it is about. */
export const invalid = (items: ValidationItem[]): Answer => ({
  status: 422,
  body: { detail: items.map((item) => ({ ...item, input: quotable(item.input) })) },
});
/** The database cannot be reached: the caller may try again. */
export const unavailable = (): Answer => ({
  status: 503,
  body: { detail: unavailableMessage },
  headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) },
});

/** A refusal whose status and headers (Retry-After) its error carries: an idempotency key's. */
const carried = (error: GraphQLErrorJson): Answer => ({
  status: error.extensions?.http?.status ?? 400,
  body: { detail: boundedMessage(error.message) },
  headers: error.extensions?.http?.headers,
});

/** A statement ran past its time: the message says which bound, the caller may try again. */
const timedOut = (error: GraphQLErrorJson): Answer => ({
  status: 504,
  body: { detail: boundedMessage(error.message) },
  headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) },
});

/** The answer to a statement past its time outside a GraphQL operation (a file's route). */
export const timedOutAnswer = (timeout: DatabaseTimeout): Answer =>
  timedOut({ message: databaseTimedOut(timeout).message });

/** Over the rate limit; the route adds Retry-After and the RateLimit-* headers. */
export const tooManyRequests = (decision: Decision, cost: number): Answer => ({
  status: 429,
  body: { detail: rateLimitedMessage(decision, cost) },
});

/** `input.objects[3].name` -> `['input', 'objects', 3, 'name']`. */
const keysOf = (field: string): (string | number)[] =>
  field.split(/\.|(?=\[)/).map((key) => (key.startsWith('[') ? Number(key.slice(1, -1)) : key));

/** The request value behind a GraphQL input path: a parameter of the route, else a body field. */
function locOf(route: CompiledRoute, field: string): (string | number)[] {
  const param = route.params.find((candidate) => candidate.target?.join('.') === field);
  if (param) return [param.in, param.name];
  return [
    'body',
    ...keysOf(field.replace(/^input\./, '')).map((key) => (typeof key === 'number' ? key : snakeCase(key))),
  ];
}

function valueAt(variables: Record<string, unknown>, field: string): unknown {
  return keysOf(field).reduce<unknown>(
    (node, key) => (node as Record<string | number, unknown> | undefined)?.[key],
    variables,
  );
}

const detail =
  (status: number) =>
  (error: GraphQLErrorJson): Answer => ({ status, body: { detail: boundedMessage(error.message) } });

/** A resolver's refusal of an input value: 422 at the request value it came from. */
function badUserInput(error: GraphQLErrorJson, route: CompiledRoute, variables: Record<string, unknown>): Answer {
  const field = error.extensions?.field;
  const loc = field ? locOf(route, field) : ['body'];
  return invalid([
    {
      type: 'value_error',
      loc,
      msg: `Value error, ${boundedMessage(error.message)}`,
      input: field ? (valueAt(variables, field) ?? null) : null,
    },
  ]);
}

/** A refused bearer token's answer, by the status and challenge its error carries; undefined for any other error. */
function challenged(error: GraphQLErrorJson): Answer | undefined {
  const http = error.extensions?.http;
  if (!http?.headers?.['WWW-Authenticate']) return undefined;
  return { status: http.status ?? 401, body: { detail: error.message }, headers: http.headers };
}

// The one place where GraphQL error codes become HTTP statuses and FastAPI bodies.
const byCode: Record<
  string,
  (error: GraphQLErrorJson, route: CompiledRoute, variables: Record<string, unknown>) => Answer
> = {
  // A token refused by the context (it expired between the route's check and its operation) keeps its status and challenge.
  UNAUTHENTICATED: (error) => challenged(error) ?? notAuthenticated(),
  FORBIDDEN: (error) => challenged(error) ?? detail(403)(error),
  NOT_FOUND: notFound,
  CONFLICT: detail(409),
  BAD_USER_INPUT: badUserInput,
  OPERATION_TOO_COMPLEX: detail(400),
  PAYLOAD_TOO_LARGE: detail(413),
  SERVICE_UNAVAILABLE: unavailable,
  DATABASE_TIMEOUT: timedOut,
  // A write that may or may not have committed: 503 with Retry-After, its own message (send it again with the key).
  OUTCOME_UNKNOWN: carried,
  IDEMPOTENCY_KEY_REUSED: carried,
  IDEMPOTENCY_KEY_IN_USE: carried,
  BAD_REQUEST: carried,
};

/** The answer to a GraphQL error: the status of its code, with FastAPI's body. */
export function fromGraphQLError(
  error: GraphQLErrorJson,
  route: CompiledRoute,
  variables: Record<string, unknown>,
): Answer {
  countErrors([error]);
  const answer = byCode[error.extensions?.code ?? ''];
  if (answer) return answer(error, route, variables);
  // Masked errors, and variables GraphQL refused after the REST checks passed them (a bug here):
  // the log has the cause, the caller a plain 500.
  logError(error.message, 'REST route answered 500', { route: route.path });
  return { status: 500, body: { detail: 'Internal Server Error' } };
}
