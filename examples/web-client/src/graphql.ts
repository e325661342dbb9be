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

/** A query or mutation over HTTP: its status, its Retry-After (seconds), and its body. */
async function post<R, V>(
  gateway: Gateway,
  document: TypedDocumentString<R, V>,
  variables: V,
  headers: Record<string, string> = {},
) {
  const response = await fetch(`${gateway.url}/graphql`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      Accept: 'application/graphql-response+json',
      ...(await gateway.credentials()),
      ...headers,
    },
    body: JSON.stringify(persisted(document, variables)),
  });
  const result = (await response.json()) as { data?: R | null; errors?: GraphQLErrorJson[] };
  return { status: response.status, retryAfter: Number(response.headers.get('Retry-After') ?? 1), result };
}

/** The data of a complete answer, or a GraphQLRequestError. */
function dataOf<R>(result: { data?: R | null; errors?: GraphQLErrorJson[] }): R {
  if (result.errors?.length || !result.data) throw new GraphQLRequestError(result.errors ?? []);
  return result.data;
}

/** Runs a query over HTTP; its data, typed by the document, or a GraphQLRequestError. */
export async function execute<R, V>(gateway: Gateway, document: TypedDocumentString<R, V>, variables: V): Promise<R> {
  return dataOf((await post(gateway, document, variables)).result);
}

/** Answers after which the same mutation is sent again with the same key: its outcome is unknown, or its first attempt still runs. */
const sendAgain = new Set(['OUTCOME_UNKNOWN', 'SERVICE_UNAVAILABLE', 'IDEMPOTENCY_KEY_IN_USE']);
const ATTEMPTS = 4;

/**
 * Runs a mutation over HTTP with an Idempotency-Key made for it: when its outcome is unknown (a lost
 * connection, OUTCOME_UNKNOWN, the database away) it is sent again with the same key after
 * Retry-After, so it is made exactly once; the gateway answers a retry of a change it made with that
 * change's answer (Idempotent-Replayed: true).
 */
export async function mutate<R, V>(gateway: Gateway, document: TypedDocumentString<R, V>, variables: V): Promise<R> {
  const headers = { 'Idempotency-Key': crypto.randomUUID() };
  for (let attempt = 1; ; attempt++) {
    let answer: Awaited<ReturnType<typeof post<R, V>>> | undefined;
    try {
      answer = await post(gateway, document, variables, headers);
    } catch (error) {
      // No answer at all: the request may or may not have reached the gateway.
      if (attempt === ATTEMPTS) throw error;
    }
    const code = answer?.result.errors?.[0]?.extensions?.code;
    if (answer && (attempt === ATTEMPTS || !sendAgain.has(code ?? ''))) return dataOf(answer.result);
    await new Promise((resolve) => setTimeout(resolve, (answer?.retryAfter ?? 1) * 1000));
  }
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
