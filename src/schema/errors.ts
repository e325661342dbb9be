import { GraphQLError } from 'graphql';

/** An error the caller caused: it reaches the client with the offending argument or field path. */
export function badUserInput(message: string, field: string): GraphQLError {
  return new GraphQLError(message, { extensions: { code: 'BAD_USER_INPUT', field, http: { status: 400 } } });
}
