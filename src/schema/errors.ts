import { GraphQLError } from 'graphql';
import { bearerChallenge, type Refusal, type RefusalReason } from '../auth/refusals.js';
import type { DatabaseTimeout } from '../db/unavailable.js';

// Errors carry their kind in `extensions.code`. A field error does not set the HTTP status: an
// answer with data is 200 whatever its errors (GraphQL over HTTP, src/http/graphql-errors.ts), and
// the REST layer maps codes to its own statuses (src/rest/errors.ts). Only errors that end a request
// before anything runs carry a status of their own.

/** An error of kind `code`; at `located`'s place in the operation when given (a failure the executor caught there). */
function expected(
  code: string,
  message: string,
  extensions: Record<string, unknown> = {},
  located?: GraphQLError,
): GraphQLError {
  return new GraphQLError(message, { nodes: located?.nodes, path: located?.path, extensions: { code, ...extensions } });
}

/** An error the caller caused: it reaches the client with the offending argument or field path. */
export function badUserInput(message: string, field: string): GraphQLError {
  return expected('BAD_USER_INPUT', message, { field });
}

/** No valid credential: missing, unknown, revoked, expired, or its user is inactive; `reason` says which when known. */
export function unauthenticated(
  message = 'Not authenticated: send a valid API key in the X-API-KEY header',
  reason?: RefusalReason,
): GraphQLError {
  return expected('UNAUTHENTICATED', message, { ...(reason && { reason }), http: { status: 401 } });
}

/**
 * A refused credential: UNAUTHENTICATED (FORBIDDEN for a token without the gateway's scopes, 403)
 * with its reason code; a bearer token's with RFC 6750's challenge.
 */
export function refused(refusal: Refusal): GraphQLError {
  const http = refusal.bearer
    ? { status: refusal.status, headers: { 'WWW-Authenticate': bearerChallenge(refusal) } }
    : { status: refusal.status };
  const code = refusal.status === 403 ? 'FORBIDDEN' : 'UNAUTHENTICATED';
  return expected(code, refusal.message, { reason: refusal.reason, http });
}

/** How a refusal names what the caller presented. */
export const credentialNames = { API_KEY: 'API key', BEARER_TOKEN: 'bearer token' } as const;

export function forbidden(message: string): GraphQLError {
  return expected('FORBIDDEN', message);
}

/** Also the answer for rows of organizations the caller does not belong to, so their ids reveal nothing. */
export function notFound(what: string): GraphQLError {
  return expected('NOT_FOUND', `${what} not found`);
}

/** The row a mutation changed is gone since (schema/loaders.ts, changedRow): the change was made all the same. */
export function deletedSince(what: string, rowId: number): GraphQLError {
  return expected('NOT_FOUND', `${what} ${rowId} not found: the change was made, and the row was deleted since`);
}

export const isNotFound = (error: unknown) => error instanceof GraphQLError && error.extensions.code === 'NOT_FOUND';

/** For a lookup's `.catch`: no such row is null; any other failure (a lost database, a bug) keeps its cause. */
export function nullIfNotFound(error: unknown): null {
  if (isNotFound(error)) return null;
  throw error;
}

export function conflict(message: string): GraphQLError {
  return expected('CONFLICT', message);
}

/**
 * The row is not at the version the caller expected (`expectedVersion`, or a REST `If-Match`): nothing
 * was changed. Carries the row's current version and the row itself (its columns by field name, `id`
 * the row id), so the caller can merge and send again without a read; both null when the row is gone.
 */
export function versionConflict(
  what: string,
  current: { version: number } | null,
  field = 'input.expectedVersion',
): GraphQLError {
  const now = current ? `it is at version ${current.version}` : 'it does not exist';
  return expected('CONFLICT', `${what} was changed meanwhile: ${now}`, {
    field,
    currentVersion: current?.version ?? null,
    current,
  });
}

/** A deadlock or serialization failure PostgreSQL resolved by aborting this change (src/db/unavailable.ts). */
export function collided(located?: GraphQLError): GraphQLError {
  return expected(
    'CONFLICT',
    'The change collided with another one made at the same moment and was not made; send it again',
    { retryable: true },
    located,
  );
}

/** How long a client should wait before it asks again while the database cannot be reached. */
export const RETRY_AFTER_SECONDS = 5;

export const unavailableMessage = `The database cannot be reached; retry in ${RETRY_AFTER_SECONDS} seconds`;

/** The database cannot be reached (src/db/unavailable.ts): the request may succeed later; at `located`'s place in the operation when given. */
export function serviceUnavailable(located?: GraphQLError): GraphQLError {
  return expected(
    'SERVICE_UNAVAILABLE',
    unavailableMessage,
    { http: { status: 503, headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) } } },
    located,
  );
}

/**
 * The connection was lost while a write committed (src/db/unavailable.ts: OutcomeUnknownError): it
 * may or may not have been made. 503 with Retry-After; only a retry with the same Idempotency-Key is
 * sure to make it once.
 */
export function outcomeUnknown(located?: GraphQLError): GraphQLError {
  return expected(
    'OUTCOME_UNKNOWN',
    `The connection to the database was lost while the change committed: it may or may not have been made; send the request again with the same Idempotency-Key in ${RETRY_AFTER_SECONDS} seconds`,
    { http: { status: 503, headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) } } },
    located,
  );
}

/** The same Idempotency-Key again, with another request: refused (422), nothing run. */
export function idempotencyKeyReused(): GraphQLError {
  return expected(
    'IDEMPOTENCY_KEY_REUSED',
    'This Idempotency-Key was sent with another request (another operation, name or variables); use a new key for a new request',
    { http: { status: 422 } },
  );
}

/** The key's request is running (its lease holds), or was taken over by a retry: refused (409), nothing run. */
export function idempotencyKeyInUse(retryAfterSeconds: number): GraphQLError {
  return expected(
    'IDEMPOTENCY_KEY_IN_USE',
    `A request with this Idempotency-Key is still running; send it again in ${retryAfterSeconds} seconds to get its answer`,
    { http: { status: 409, headers: { 'Retry-After': String(retryAfterSeconds) } } },
  );
}

/** An Idempotency-Key that is not 1 to 255 printable ASCII characters (400). */
export function badIdempotencyKey(): GraphQLError {
  return expected(
    'BAD_REQUEST',
    'The Idempotency-Key header must be 1 to 255 printable ASCII characters (a UUID, say)',
    { header: 'Idempotency-Key', http: { status: 400 } },
  );
}

const timeoutMessages: Record<DatabaseTimeout, string> = {
  statement: 'The database did not finish this operation in the time allowed, and stopped it; retry, or ask for less',
  lock: 'A row this operation changes is locked by another change that did not end in time; retry',
};

/** A statement ran past its bound (src/db/unavailable.ts: databaseTimeout) and was stopped; at `located`'s place when given. */
export function databaseTimedOut(timeout: DatabaseTimeout, located?: GraphQLError): GraphQLError {
  return expected(
    'DATABASE_TIMEOUT',
    timeoutMessages[timeout],
    { timeout, http: { status: 504, headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) } } },
    located,
  );
}

export function tooManySubscriptions(limit: number): GraphQLError {
  return expected(
    'TOO_MANY_SUBSCRIPTIONS',
    `An API key may hold at most ${limit} open subscriptions; close one first`,
    { http: { status: 429 } },
  );
}

export function tooManyOperations(limit: number): GraphQLError {
  return expected('TOO_MANY_OPERATIONS', `A WebSocket may run ${limit} operations at once; complete one first`, {
    http: { status: 429 },
  });
}

/** A subscriber that left this many events unread: the stream ended rather than hold more for it. */
export function unreadEvents(limit: number): GraphQLError {
  return expected(
    'SUBSCRIBER_TOO_SLOW',
    `${limit} events waited unread: the subscription ended; read events as they come, and subscribe again`,
  );
}

/**
 * A cursor the change log cannot continue from without a gap: older than its retention, or of
 * another database. A stream goes on from now after it; `now` is the cursor a client reads on from.
 */
export function cursorExpired(message: string, now: string): GraphQLError {
  return expected('CURSOR_EXPIRED', message, { cursor: now });
}
