// GraphQL over HTTP as a client sends it, to any gateway: in this process or another. Nothing of the
// gateway is imported here, so a suite of processes does not load it.

export interface GraphQLResponse<T = Record<string, any>> {
  status: number;
  data?: T;
  errors?: { message: string; path?: (string | number)[]; extensions?: Record<string, unknown> }[];
}

/** What a test sends beside the operation's text. */
export interface GraphQLRequest {
  variables?: Record<string, unknown>;
  /** A demo key, sent as `x-api-key`. */
  key?: string | null;
  /** Headers of the request's own (a bearer token, an origin), or an `accept` or `content-type` in place of the JSON ones. */
  headers?: Record<string, string>;
  /** The body's `extensions` (a persisted query's hash). */
  extensions?: Record<string, unknown>;
  signal?: AbortSignal;
}

/**
 * POSTs a GraphQL operation to the gateway at `url` as a client would: JSON, asking for
 * application/graphql-response+json unless `headers` say otherwise. `query` undefined sends none (a
 * persisted query by its hash).
 */
export function sendGraphQL(
  url: string,
  query: string | undefined,
  { variables, key, headers, extensions, signal }: GraphQLRequest = {},
): Promise<Response> {
  return fetch(`${url}/graphql`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/graphql-response+json',
      ...(key ? { 'x-api-key': key } : {}),
      ...headers,
    },
    body: JSON.stringify({ query, variables, extensions }),
    signal,
  });
}

/** Sends a GraphQL operation and reads its answer with the status. */
export async function postGraphQL<T = Record<string, any>>(
  url: string,
  query: string | undefined,
  request: GraphQLRequest = {},
): Promise<GraphQLResponse<T>> {
  const response = await sendGraphQL(url, query, request);
  return { status: response.status, ...(await response.json()) };
}

/** A row's global id as a client reads it off the schema (Relay's: base64 of "Type:rowId"), written apart from the gateway's code. */
export const globalId = (type: string, rowId: number | string): string =>
  Buffer.from(`${type}:${rowId}`).toString('base64');
