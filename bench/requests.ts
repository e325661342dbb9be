/** The requests the bench sends: one shape for the load generator, the checks and every server. */
import type { KeyRing } from './keys.js';

export interface HttpRequest {
  method: 'GET' | 'POST' | 'PUT';
  path: string;
  headers: Record<string, string>;
  body?: string;
}

const json = { 'content-type': 'application/json', accept: 'application/graphql-response+json' };

export function graphql(
  keys: KeyRing,
  key: number | 'token',
  query: string,
  variables: Record<string, unknown>,
): HttpRequest {
  return {
    method: 'POST',
    path: '/graphql',
    headers: { ...json, ...keys.headers(key) },
    body: JSON.stringify({ query, variables }),
  };
}

/** The peer takes no key: its documents filter by the organization instead. */
export function peerGraphql(query: string, variables: Record<string, unknown>): HttpRequest {
  // A copy of the headers: the load generator adds content-length to the object it is given.
  return { method: 'POST', path: '/graphql', headers: { ...json }, body: JSON.stringify({ query, variables }) };
}

/** The floor server's route for request i: a path with its query string. */
export const floorGet = (path: string): HttpRequest => ({ method: 'GET', path, headers: {} });

/** A REST request of the gateway with key 0's headers; `body` is sent as JSON. */
export function rest(keys: KeyRing, method: HttpRequest['method'], path: string, body?: unknown): HttpRequest {
  const headers = body === undefined ? keys.headers(0) : { 'content-type': 'application/json', ...keys.headers(0) };
  return { method, path, headers, body: body === undefined ? undefined : JSON.stringify(body) };
}

/** Sends one request outside the load, for discovery and checks; `total` is the X-Total-Count header of a REST list. */
export async function send(
  baseUrl: string,
  request: HttpRequest,
): Promise<{ status: number; body: unknown; total: string | null }> {
  const response = await fetch(baseUrl + request.path, {
    method: request.method,
    headers: request.headers,
    body: request.body,
  });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // Not JSON: kept as text for the report.
  }
  return { status: response.status, body, total: response.headers.get('x-total-count') };
}
