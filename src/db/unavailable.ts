const READ_ONLY = '25006';

// How a database that cannot be reached, or a statement past its time, shows itself, whichever layer
// reports it. Such a failure is the service's state, not the request's fault nor a bug: answered 503
// with Retry-After (unreachable), or with a timeout's code of its own.

/** The gateway's own finding that no server can take the work now (no answer in time, no server of the kind asked for). */
export class DatabaseUnavailableError extends Error {
  override name = 'DatabaseUnavailableError';
}

/** Node's socket errors for a server that is down, unreachable or went away. */
const socketCodes = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);

/**
 * PostgreSQL: admin, crash and "cannot connect now" shutdowns, too many connections, and a write
 * refused as read-only (25006: the server taken for the primary is a standby now, in a failover);
 * class 08, connection exceptions, is matched apart.
 */
const sqlStates = new Set(['57P01', '57P02', '57P03', '53300', READ_ONLY]);

/** Prisma's own codes: server unreachable, timed out reaching it, operation timed out, connection closed. */
const prismaCodes = new Set(['P1001', 'P1002', 'P1008', 'P1017']);

/** What Prisma's driver adapters report (`DriverAdapterError.cause.kind`) for the same. */
const adapterKinds = new Set(['DatabaseNotReachable', 'ConnectionClosed', 'SocketTimeout', 'TooManyConnections']);

/**
 * pg ends a connection lost mid-query without a code, and says so of a connection or a pooled one
 * that did not come in time; Prisma, of a transaction that found no connection in time (P2028, whose
 * other messages are a transaction past its own timeout); PGlite refuses queries once closed.
 */
const messages =
  /^(Connection terminated|Client has encountered a connection error|Client was closed|PGlite is closed|timeout expired|timeout exceeded when trying to connect|Transaction API error: Unable to start a transaction in the given time)/;

interface ErrorLike {
  code?: unknown;
  kind?: unknown;
  message?: unknown;
  cause?: unknown;
  originalError?: unknown;
  meta?: { driverAdapterError?: unknown };
  errors?: unknown;
}

function signalsUnavailable(error: ErrorLike): boolean {
  if (error instanceof DatabaseUnavailableError) return true;
  const { code, kind, message } = error;
  if (
    typeof code === 'string' &&
    (socketCodes.has(code) || sqlStates.has(code) || prismaCodes.has(code) || /^08[0-9A-Z]{3}$/.test(code))
  )
    return true;
  if (typeof kind === 'string' && adapterKinds.has(kind)) return true;
  return typeof message === 'string' && messages.test(message);
}

/** The error and what it wraps: `cause`, a GraphQL error's original, Prisma's driver adapter error, an AggregateError's errors. */
function wrapped(error: ErrorLike): unknown[] {
  return [
    error.cause,
    error.originalError,
    error.meta?.driverAdapterError,
    ...(Array.isArray(error.errors) ? error.errors : []),
  ];
}

/** Whether `signals` holds for the error or anything it wraps. */
function findIn(error: unknown, signals: (error: ErrorLike) => boolean): boolean {
  const seen = new Set<unknown>();
  const pending = [error];
  while (pending.length) {
    const next = pending.pop();
    if (typeof next !== 'object' || next === null || seen.has(next)) continue;
    seen.add(next);
    if (signals(next as ErrorLike)) return true;
    pending.push(...wrapped(next as ErrorLike));
  }
  return false;
}

/** Whether the error, or anything it wraps, says the database cannot be reached now (refused, lost or shutting-down connections). */
export function isDatabaseUnavailable(error: unknown): boolean {
  return findIn(error, signalsUnavailable);
}

/** Whether the error is a server's refusal of a write as read-only: a standby's answer, no sign that the server is away. */
export function isReadOnlyRefusal(error: unknown): boolean {
  return findIn(error, ({ code }) => code === READ_ONLY);
}

/** PostgreSQL's serialization_failure and deadlock_detected, which Prisma's driver adapter reports as this kind. */
const collisionCodes = new Set(['40001', '40P01']);

/**
 * Whether the error is a collision with another transaction that PostgreSQL resolved by aborting
 * this one (a deadlock, a serialization failure): nothing was changed, and the same change may
 * succeed when sent again.
 */
export function isTransactionCollision(error: unknown): boolean {
  return findIn(
    error,
    ({ code, kind }) => (typeof code === 'string' && collisionCodes.has(code)) || kind === 'TransactionWriteConflict',
  );
}

/** Which bound a statement ran past: its own time, or the wait for a lock another session holds. */
export type DatabaseTimeout = 'statement' | 'lock';

/**
 * PostgreSQL's query_canceled (57014: statement_timeout, or the gateway's cancel past that time) and
 * lock_not_available (55P03: lock_timeout); Prisma's P2028 for an interactive transaction past its timeout.
 */
const timeoutCodes: Record<string, DatabaseTimeout> = { '57014': 'statement', '55P03': 'lock' };
const transactionExpired = /^Transaction API error: Transaction already closed/;

/** The bound a statement ran past, when the error (or anything it wraps) is such a timeout. */
export function databaseTimeout(error: unknown): DatabaseTimeout | undefined {
  let found: DatabaseTimeout | undefined;
  findIn(error, ({ code, message }) => {
    found = typeof code === 'string' ? timeoutCodes[code] : undefined;
    if (!found && typeof message === 'string' && transactionExpired.test(message)) found = 'statement';
    return found !== undefined;
  });
  return found;
}

/**
 * The connection was lost after a write was sent and before its answer came: during a transaction's
 * COMMIT, or a one-statement write (its own transaction). It may or may not have committed; only a
 * retry with the request's Idempotency-Key is sure to make the change once (src/http/idempotency.ts).
 */
export class OutcomeUnknownError extends Error {
  override name = 'OutcomeUnknownError';
}

/** Failures before a statement leaves: no connection (refused, none in time, none free), or a server that refuses new sessions. */
const beforeSending = (error: ErrorLike) =>
  (typeof error.code === 'string' &&
    ['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', '57P03', '53300'].includes(error.code)) ||
  (typeof error.message === 'string' &&
    /^(timeout expired|timeout exceeded when trying to connect|PGlite is closed|Client was closed|Transaction API error: Unable to start)|every connection/.test(
      error.message,
    ));

/**
 * A write's failure as it should be told: OutcomeUnknownError when the database went away once the
 * write was sent (it may have committed), else the failure itself.
 */
export function sentAndLost(error: unknown): unknown {
  if (!isDatabaseUnavailable(error) || findIn(error, beforeSending)) return error;
  return new OutcomeUnknownError('the connection was lost before the write answered', { cause: error });
}

/** Whether the error, or anything it wraps, is a write of unknown outcome. */
export function isOutcomeUnknown(error: unknown): boolean {
  return findIn(error, (each) => each instanceof OutcomeUnknownError);
}
