import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import type { DatabaseEngine } from '../../src/db/engine.js';
import type { LiveEvent } from '../../src/live/events.js';
import { LiveHub } from '../../src/live/hub.js';
import { sendGraphQL } from './graphql.js';

export interface Subscription {
  /** The next result the server sent, failing after `timeoutMs`. */
  next(
    timeoutMs?: number,
  ): Promise<{ data?: any; errors?: { message: string; extensions?: Record<string, unknown> }[] }>;
  /** Resolves when the server ended the stream. */
  ended: Promise<void>;
  close(): void;
}

/** Results arrive in order; `next` takes them one by one. */
function resultQueue() {
  const results: any[] = [];
  const waiters: ((result: any) => void)[] = [];
  let end!: () => void;
  const ended = new Promise<void>((resolve) => (end = resolve));
  return {
    ended,
    end,
    push(result: any) {
      const waiter = waiters.shift();
      if (waiter) waiter(result);
      else results.push(result);
    },
    next(timeoutMs = 2_000): Promise<any> {
      if (results.length > 0) return Promise.resolve(results.shift());
      return new Promise((resolve, reject) => {
        const waiter = (result: any) => {
          clearTimeout(timer);
          resolve(result);
        };
        const timer = setTimeout(() => {
          waiters.splice(waiters.indexOf(waiter), 1);
          reject(new Error(`no event within ${timeoutMs} ms`));
        }, timeoutMs);
        waiters.push(waiter);
      });
    },
  };
}

/** An API key's secret, or a bearer token. */
export type TestCredential = string | { bearer: string };

/** The header of a credential: X-API-KEY for a key, Authorization for a bearer token, none for none (null). */
export const credentialHeader = (credential: TestCredential | null): Record<string, string> =>
  credential === null
    ? {}
    : typeof credential === 'string'
      ? { 'x-api-key': credential }
      : { authorization: `Bearer ${credential.bearer}` };

/**
 * Subscribes over Server-Sent Events with a plain fetch; resolves once the server answered
 * `text/event-stream`. `ids` collects each event's `id:` line, in order.
 */
export async function subscribeSse(
  url: string,
  key: TestCredential | null,
  query: string,
  variables: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Promise<Subscription & { response: Response; ids: string[] }> {
  const abort = new AbortController();
  const response = await sendGraphQL(url, query, {
    variables,
    headers: { accept: 'text/event-stream', ...credentialHeader(key), ...headers },
    signal: abort.signal,
  });
  const ids: string[] = [];
  const queue = resultQueue();
  void (async () => {
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const message = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const data = message
            .split('\n')
            .filter((line) => line.startsWith('data:'))
            .map((line) => line.slice(5).trim())
            .join('\n');
          const id = /^id: *(.*)$/m.exec(message)?.[1];
          if (id) ids.push(id);
          if (/^event: *next/m.test(message) && data) queue.push(JSON.parse(data));
        }
      }
    } catch {
      // Aborted by close().
    }
    queue.end();
  })();
  return { response, ids, next: queue.next, ended: queue.ended, close: () => abort.abort() };
}

/** Subscribes over WebSocket with the graphql-ws client, the key (or token) in the connection parameters. */
export function subscribeWs(
  url: string,
  key: TestCredential | null,
  query: string,
  variables: Record<string, unknown> = {},
): Subscription {
  const client = createClient({
    url: `${url.replace(/^http/, 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    // The gateway reads the connection parameters' names as it reads headers, case aside.
    connectionParams: credentialHeader(key),
    retryAttempts: 0,
  });
  const queue = resultQueue();
  // A refused connection is a close event: its code and reason are the message.
  const message = (error: unknown) =>
    error instanceof Error ? error.message : `${(error as CloseEvent).code} ${(error as CloseEvent).reason}`;
  client.subscribe(
    { query, variables },
    {
      next: queue.push,
      error: (error) => (queue.push({ errors: [{ message: message(error) }] }), queue.end()),
      complete: queue.end,
    },
  );
  return { next: queue.next, ended: queue.ended, close: () => void client.dispose() };
}

/** Waits until `check` holds (a subscription registered, say). */
export async function until(check: () => boolean, timeoutMs = 2_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * `count` entries of the change log telling that board `rowId` was updated, as a write would log
 * them: $1 the organization, $2 the board, $3 how many.
 */
export const boardUpdatesSql = `INSERT INTO user_action_log (user_id, organization_id, method, entity_type, entity_id, kind, whiteboard_id)
  SELECT 1, $1, 'UPDATE', 'Whiteboard', $2, 'UPDATED', $2 FROM generate_series(1, $3::int)`;

/** A hub of its own, reading the change log every 5 ms, and every event it read, in order: what the writes told subscribers. */
export async function heardEvents(engine: () => DatabaseEngine): Promise<{ hub: LiveHub; events: LiveEvent[] }> {
  const hub = new LiveHub(engine, 1, 5, 0);
  const events: LiveEvent[] = [];
  await hub.start();
  hub.onEvent((event) => events.push(event));
  return { hub, events };
}
