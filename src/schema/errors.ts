import { GraphQLError } from 'graphql';

function expected(code: string, status: number, message: string, extensions: Record<string, unknown> = {}): GraphQLError {
  return new GraphQLError(message, { extensions: { code, ...extensions, http: { status } } });
}

/** An error the caller caused: it reaches the client with the offending argument or field path. */
export function badUserInput(message: string, field: string): GraphQLError {
  return expected('BAD_USER_INPUT', 400, message, { field });
}

/** No valid API key: missing, unknown, revoked, expired, or its user is inactive. */
export function unauthenticated(message = 'Not authenticated: send a valid API key in the X-API-KEY header'): GraphQLError {
  return expected('UNAUTHENTICATED', 401, message);
}

export function forbidden(message: string): GraphQLError {
  return expected('FORBIDDEN', 403, message);
}

/** Also the answer for rows of organizations the caller does not belong to, so their ids reveal nothing. */
export function notFound(what: string): GraphQLError {
  return expected('NOT_FOUND', 404, `${what} not found`);
}

export function conflict(message: string): GraphQLError {
  return expected('CONFLICT', 409, message);
}

export function tooManySubscriptions(limit: number): GraphQLError {
  return expected('TOO_MANY_SUBSCRIPTIONS', 429, `An API key may hold at most ${limit} open subscriptions; close one first`);
}
