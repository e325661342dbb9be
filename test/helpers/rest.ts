import type { TestServer } from './server.js';

export interface RestResponse {
  status: number;
  headers: Headers;
  /** The JSON body; the text when it is not JSON; undefined when empty. */
  body: any;
}

/** Calls a REST route as a legacy client would: the demo owner's key unless another (or null) is given. */
export async function rest(
  server: Pick<TestServer, 'url' | 'keys'>,
  method: string,
  path: string,
  options: { key?: string | null; json?: unknown; body?: BodyInit; headers?: Record<string, string> } = {},
): Promise<RestResponse> {
  const { key = server.keys.owner } = options;
  const response = await fetch(server.url + path, {
    method,
    redirect: 'manual',
    headers: {
      ...(key ? { 'x-api-key': key } : {}),
      ...(options.json !== undefined ? { 'content-type': 'application/json' } : {}),
      ...options.headers,
    },
    body: options.json !== undefined ? JSON.stringify(options.json) : options.body,
  });
  const text = await response.text();
  let body: unknown = text === '' ? undefined : text;
  try {
    body = JSON.parse(text);
  } catch {
    // Not JSON: kept as text.
  }
  return { status: response.status, headers: response.headers, body };
}
