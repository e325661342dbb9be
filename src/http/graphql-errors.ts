import { GraphQLError, type ExecutionResult } from 'graphql';
import { PothosValidationError } from '@pothos/core';
import { maskError as maskErrorByDefault, type Plugin } from 'graphql-yoga';
import { databaseTimeout, isDatabaseUnavailable, isOutcomeUnknown, isTransactionCollision } from '../db/unavailable.js';
import { collided, databaseTimedOut, outcomeUnknown, serviceUnavailable } from '../schema/errors.js';
import { boundedMessage } from './quoting.js';

/**
 * What a client sees of an error that is not one of ours: Pothos's refusal of a malformed argument
 * (a global id of the wrong type, say) is the caller's fault and shown; a database that cannot be
 * reached is SERVICE_UNAVAILABLE (OUTCOME_UNKNOWN when it went away while a write committed), a statement past its time DATABASE_TIMEOUT, a deadlock or a
 * serialization failure CONFLICT (send it again); anything else is a bug, masked as "Unexpected
 * error." (the log keeps it). Used by `/graphql` and the REST routes alike.
 */
export function maskError(error: unknown, message: string, isDev?: boolean): Error {
  const located = error instanceof GraphQLError ? error : undefined;
  if (located?.originalError instanceof PothosValidationError) {
    return new GraphQLError(located.originalError.message, {
      nodes: located.nodes,
      path: located.path,
      extensions: { code: 'BAD_USER_INPUT' },
    });
  }
  if (isOutcomeUnknown(error)) return outcomeUnknown(located);
  if (isDatabaseUnavailable(error)) return serviceUnavailable(located);
  const timeout = databaseTimeout(error);
  if (timeout) return databaseTimedOut(timeout, located);
  if (isTransactionCollision(error)) return collided(located);
  return maskErrorByDefault(error, message, isDev);
}

type Extensions = GraphQLError['extensions'] & { http?: { status?: number }; unexpected?: boolean };

/** The error with a bounded message and these extensions; itself when nothing changes. */
function reworded(error: GraphQLError, extensions: Extensions): GraphQLError {
  const message = boundedMessage(error.message);
  if (message === error.message && extensions === error.extensions) return error;
  return new GraphQLError(message, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    path: error.path,
    originalError: error.originalError,
    extensions,
  });
}

/** A field error leaves the status alone: an answer with data is 200. */
function asFieldError(error: GraphQLError): GraphQLError {
  const { http, ...extensions } = error.extensions as Extensions;
  return reworded(error, http ? extensions : error.extensions);
}

/**
 * A request error (nothing ran) that is the caller's, such as a refused variable, the row limit's or
 * a refused argument value, is 400 for application/graphql-response+json and, as validation errors
 * are (`spec`), 200 for application/json. Bugs stay 500; 401, 413 and 503 stay what they are.
 */
function asRequestError(error: GraphQLError): GraphQLError {
  const extensions = error.extensions as Extensions;
  const status = extensions.http?.status ?? 400;
  if (status !== 400 || extensions.unexpected) return reworded(error, extensions);
  return reworded(error, { ...extensions, http: { ...extensions.http, spec: true, status } } as Extensions);
}

/** The database's state, not the operation: a retry of the whole operation may succeed. */
const retryable = new Set(['SERVICE_UNAVAILABLE', 'DATABASE_TIMEOUT', 'OUTCOME_UNKNOWN']);
const isRetryable = (error: GraphQLError) => retryable.has(error.extensions?.code as string);

/** No root field was answered: a retry loses nothing. */
const nothingAnswered = (data: ExecutionResult['data']) =>
  data == null || Object.values(data).every((value) => value === null);

/**
 * The HTTP status of a `/graphql` answer follows the GraphQL-over-HTTP specification: an answer
 * with `data` is 200 whatever its field errors (their codes stay in `extensions.code`); a request
 * error is 4xx (200 when the client accepts only application/json). One exception: when the
 * database cannot be reached (or ran past its time) and nothing was answered, the answer is 503
 * (504) with Retry-After and those errors alone, so a client retries the whole operation.
 */
function statusByGraphQLOverHttp(): Plugin {
  return {
    onExecutionResult({ result, setResult }) {
      if (!result || Array.isArray(result) || Symbol.asyncIterator in result) return;
      const { errors } = result as ExecutionResult;
      if (!errors?.length) return;
      const { data } = result as ExecutionResult;
      if (errors.some(isRetryable) && nothingAnswered(data)) return setResult({ errors: errors.filter(isRetryable) });
      setResult({ ...result, errors: errors.map(data === undefined ? asRequestError : asFieldError) });
    },
  };
}

/** Yoga answers these with an empty body; each gets an error saying what to send instead. */
const emptyAnswers: Record<number, { code: string; message: (response: Response) => string }> = {
  406: {
    code: 'NOT_ACCEPTABLE',
    message: (response) =>
      `Not Acceptable: the Accept header must allow one of ${response.headers.get('accept') ?? 'application/graphql-response+json, application/json'}`,
  },
  415: {
    code: 'UNSUPPORTED_MEDIA_TYPE',
    message: () =>
      'Unsupported Media Type: send the operation as application/json (or application/graphql, application/x-www-form-urlencoded, or multipart/form-data with files)',
  },
};

function explainedEmptyAnswers(): Plugin {
  return {
    onResponse({ response, setResponse, fetchAPI }) {
      const answer = response.body === null ? emptyAnswers[response.status] : undefined;
      if (!answer) return;
      const headers = new fetchAPI.Headers(response.headers);
      headers.set('content-type', 'application/json; charset=utf-8');
      const body = JSON.stringify({
        errors: [{ message: answer.message(response), extensions: { code: answer.code } }],
      });
      setResponse(new fetchAPI.Response(body, { status: response.status, statusText: response.statusText, headers }));
    },
  };
}

/** How `/graphql` reports errors: statuses by the specification, and a body for every refusal. */
export function graphqlErrorReporting(): Plugin[] {
  return [statusByGraphQLOverHttp(), explainedEmptyAnswers()];
}
