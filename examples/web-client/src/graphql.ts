import { createClient, type Client } from 'graphql-ws';
import type { TypedDocumentString } from './generated/graphql/graphql.js';

/** The gateway, and how the caller is presented: an API key (X-API-KEY), or the signed-in user's access token (Authorization). */
export interface Gateway {
  url: string;
  credentials(): Promise<Record<string, string>>;
}

/** A GraphQL error as the gateway answers it: `extensions.code` says which kind, `extensions.reason` why a credential was refused (the gateway's docs/errors-and-limits.md). */
export interface GraphQLErrorJson {
  message: string;
  extensions?: { code?: string; reason?: string };
}

export class GraphQLRequestError extends Error {
  constructor(readonly errors: GraphQLErrorJson[]) {
    super(errors.map((error) => error.message).join('; '));
  }
}

/** The persisted-query form: the document's hash, never its text (the gateway runs TRUSTED_DOCUMENTS only). */
function persisted<V>(document: TypedDocumentString<unknown, V>, variables: V) {
  const hash = document.__meta__?.hash;
  if (typeof hash !== 'string') throw new Error('a document without its hash: run npm run generate');
  return { variables, extensions: { persistedQuery: { version: 1, sha256Hash: hash } } };
}

/** Runs a query or mutation over HTTP; its data, typed by the document, or a GraphQLRequestError. */
export async function execute<R, V>(gateway: Gateway, document: TypedDocumentString<R, V>, variables: V): Promise<R> {
  const response = await fetch(`${gateway.url}/graphql`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      Accept: 'application/graphql-response+json',
      ...(await gateway.credentials()),
    },
    body: JSON.stringify(persisted(document, variables)),
  });
  const result = (await response.json()) as { data?: R | null; errors?: GraphQLErrorJson[] };
  if (result.errors?.length || !result.data) throw new GraphQLRequestError(result.errors ?? []);
  return result.data;
}

/**
 * The WebSocket of subscriptions (graphql-transport-ws); browsers cannot set headers on it, so the key
 * or token goes in the connection parameters, read again at each connection. It does not reconnect by
 * itself: graphql-ws would subscribe again with the first variables, and the caller resumes with the
 * cursor of the last event it got instead.
 */
export function subscriptions(gateway: Gateway): Client {
  return createClient({
    url: `${gateway.url.replace(/^http/, 'ws')}/graphql`,
    connectionParams: () => gateway.credentials(),
    retryAttempts: 0,
  });
}

/** Follows a subscription until `stop()`; each result's data, typed by the document. */
export function subscribe<R, V extends Record<string, unknown>>(
  client: Client,
  document: TypedDocumentString<R, V>,
  variables: V,
  on: { next(data: R): void; error(error: unknown): void },
): () => void {
  // The persisted form has no query text; graphql-ws's payload wants the field, so it is empty.
  return client.subscribe<R>(
    { query: '', ...persisted(document, variables) },
    {
      next: (result) =>
        result.errors?.length ? on.error(new GraphQLRequestError([...result.errors])) : on.next(result.data as R),
      error: on.error,
      complete: () => {},
    },
  );
}
