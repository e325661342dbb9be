import { pino, type DestinationStream, type Logger } from 'pino';
import { PothosValidationError } from '@pothos/core';
import { GraphQLError } from 'graphql';
import type { YogaLogger } from 'graphql-yoga';
import type { LogFormat } from '../config.js';
import { databaseTimeout, isDatabaseUnavailable, isTransactionCollision } from '../db/unavailable.js';
import { currentRequest } from './requests.js';

/** Deepest cause followed when an error is logged (a cycle must not loop). */
const MAX_CAUSES = 8;

// An API key's secret, a JSON Web Token, a URL's password (up to its last @, whatever it holds), and the
// value after a secret-like name in a message (Prisma quotes a failed call's arguments; a URL's ?password=).
const SECRET_KEY = /wbg_[\w-]+/g;
const URL_PASSWORD = /\b([a-z][\w+.-]*:\/\/[^\s:@/]*):\S*@/gi;
const JWT = /eyJ[\w-]*\.[\w-]+\.[\w-]*/g;
const SECRET_FIELD =
  /((?:password|passwd|secret|token|api[_-]?key|authorization)\w*["']?\s*[:=]\s*)("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|[^\s,}]+)/gi;

/** The text with API key secrets, bearer tokens and the values of secret-named fields replaced. */
export function scrub(text: string): string {
  return text
    .replace(SECRET_KEY, 'wbg_[redacted]')
    .replace(JWT, '[redacted JWT]')
    .replace(URL_PASSWORD, '$1:[redacted]@')
    .replace(SECRET_FIELD, '$1"[redacted]"');
}

interface LoggedError {
  type: string;
  message: string;
  code?: unknown;
  path?: string;
  stack?: string;
  cause?: LoggedError;
}

/** An error and its causes (`cause`, or GraphQL's `originalError`), each scrubbed of secrets. */
function serializeError(error: unknown, depth = 0): LoggedError {
  if (!(error instanceof Error)) return { type: typeof error, message: scrub(String(error)) };
  const { code, extensions, path, originalError } = error as Error & {
    code?: unknown;
    extensions?: { code?: unknown };
    path?: readonly (string | number)[];
    originalError?: unknown;
  };
  const logged: LoggedError = { type: error.name, message: scrub(error.message) };
  const errorCode = extensions?.code ?? code;
  if (errorCode !== undefined) logged.code = errorCode;
  if (path) logged.path = path.join('.');
  if (error.stack) logged.stack = scrub(error.stack);
  const cause = error.cause ?? originalError;
  if (cause !== undefined && cause !== error && depth < MAX_CAUSES) logged.cause = serializeError(cause, depth + 1);
  return logged;
}

function createLogger(level: string, destination?: DestinationStream): Logger {
  // Nothing logged carries headers or bodies; these paths guard fields a caller might add later.
  return pino(
    {
      level,
      base: undefined,
      // `reason` holds an error's message wherever a line gives one without its stack (a timeout, a collision, an outage).
      serializers: {
        err: serializeError,
        reason: (reason: unknown) => (typeof reason === 'string' ? scrub(reason) : reason),
      },
      redact: ['*.password', '*.token', '*.secret', '*["x-api-key"]', '*.authorization'],
    },
    destination,
  );
}

/** The process's logger: JSON lines on stdout until `configureLogging` says otherwise. */
export let logger: Logger = createLogger(process.env.LOG_LEVEL || 'info');

let requestLines: Logger | undefined;

/**
 * The logger of the one line per request. Its fields are the gateway's own, none of them named like
 * a secret, so it skips the redaction paths, which took three quarters of the line's cost (7 of 9 µs).
 */
export function requestLogger(): Logger {
  requestLines ??= logger.child({}, { redact: [] });
  return requestLines;
}

/** Sets the level and the output (pretty: pino-pretty's human-readable lines); tests pass a destination to read the lines. */
export async function configureLogging(
  options: { level: string; format: LogFormat },
  destination?: DestinationStream,
): Promise<Logger> {
  const output =
    destination ??
    (options.format === 'pretty' ? (await import('pino-pretty')).default({ colorize: true }) : undefined);
  logger = createLogger(options.level, output);
  requestLines = undefined;
  return logger;
}

/** Logs an error with its cause chain and the id of the request it happened in. */
export function logError(error: unknown, message: string, fields?: Record<string, unknown>): void {
  const request = currentRequest();
  // Yoga reports an error it masks twice (its masking and its request error handling): once is enough.
  if (request) {
    if (request.lastError === error) return;
    request.lastError = error;
  }
  logger.error({ ...fields, requestId: request?.id, err: error }, message);
}

/** Yoga's own reports go to the logger; what it reports as errors are the errors it masked, those of a database that is away to `onUnavailable`. */
export function yogaLogger(onUnavailable: (error: unknown) => void): YogaLogger {
  return {
    // Yoga passes one message; a disabled level is pino's no-op.
    debug: (message: string) => logger.debug(message),
    info: (message: string) => logger.info(message),
    warn: (message: string) => logger.warn(message),
    error: (error: unknown) => {
      // Pothos's refusal of an argument is the caller's mistake, answered BAD_USER_INPUT (http/graphql-errors.ts).
      if (error instanceof GraphQLError && error.originalError instanceof PothosValidationError)
        return logger.debug({ requestId: currentRequest()?.id, reason: error.message }, 'argument refused');
      if (isDatabaseUnavailable(error)) return onUnavailable(error);
      // The database stopped a statement at its bound, or aborted a change that collided with another:
      // the caller was told so; no bug, no stack.
      const timeout = databaseTimeout(error);
      const requestId = currentRequest()?.id;
      if (timeout)
        return logger.warn({ requestId, timeout, reason: (error as Error).message }, 'a statement ran past its time');
      if (isTransactionCollision(error))
        return logger.warn({ requestId, reason: (error as Error).message }, 'a change collided with another');
      logError(error, 'unexpected error');
    },
  };
}
