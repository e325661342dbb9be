// How a database that cannot be reached shows itself, whichever layer reports it. Such a failure is
// the service's state, not the request's fault nor a bug: answered 503 with Retry-After.

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

/** PostgreSQL: admin, crash and "cannot connect now" shutdowns, too many connections (class 08, connection exceptions, is matched apart). */
const sqlStates = new Set(['57P01', '57P02', '57P03', '53300']);

/** Prisma's own codes: server unreachable, timed out reaching it, operation timed out, connection closed. */
const prismaCodes = new Set(['P1001', 'P1002', 'P1008', 'P1017']);

/** What Prisma's driver adapters report (`DriverAdapterError.cause.kind`) for the same. */
const adapterKinds = new Set(['DatabaseNotReachable', 'ConnectionClosed', 'SocketTimeout', 'TooManyConnections']);

/** pg ends a connection lost mid-query without a code; PGlite refuses queries once closed. */
const messages = /^(Connection terminated|Client has encountered a connection error|PGlite is closed)/;

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

/** Whether the error, or anything it wraps, says the database cannot be reached now (refused, lost or shutting-down connections). */
export function isDatabaseUnavailable(error: unknown): boolean {
  const seen = new Set<unknown>();
  const pending = [error];
  while (pending.length) {
    const next = pending.pop();
    if (typeof next !== 'object' || next === null || seen.has(next)) continue;
    seen.add(next);
    if (signalsUnavailable(next as ErrorLike)) return true;
    pending.push(...wrapped(next as ErrorLike));
  }
  return false;
}
