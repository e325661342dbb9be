import pg from 'pg';
import { sendGraphQL } from './graphql.js';

/** One request as a client saw it: status, what the body said, and how long it waited. */
export interface Answered {
  status: number;
  ms: number;
  /** GraphQL's first `extensions.code`, or REST's `detail` when it is a string. */
  code: string | undefined;
  retryAfter: string | null;
  body: any;
}

/** Times a fetch whose response is read whole; a request that fails at the socket counts as status 0. */
export async function timed(request: () => Promise<Response>): Promise<Answered> {
  const start = performance.now();
  try {
    const response = await request();
    const text = await response.text();
    let body: any = text;
    try {
      body = JSON.parse(text);
    } catch {
      // Not JSON: kept as text.
    }
    const code = body?.errors?.[0]?.extensions?.code ?? (typeof body?.detail === 'string' ? body.detail : undefined);
    const retryAfter = response.headers.get('retry-after');
    return { status: response.status, ms: performance.now() - start, code, retryAfter, body };
  } catch (error) {
    return { status: 0, ms: performance.now() - start, code: String(error), retryAfter: null, body: undefined };
  }
}

/** A GraphQL operation sent to `url` and timed. */
export const timedGraphQL = (url: string, key: string, query: string, variables?: Record<string, unknown>) =>
  timed(() => sendGraphQL(url, query, { variables, key }));

/** A REST call sent to `url` and timed. */
export const timedRest = (url: string, key: string, method: string, path: string, json?: unknown) =>
  timed(() =>
    fetch(url + path, {
      method,
      headers: { 'x-api-key': key, ...(json === undefined ? {} : { 'content-type': 'application/json' }) },
      body: json === undefined ? undefined : JSON.stringify(json),
    }),
  );

/** A session of its own on `url` in a transaction, begun with `sql`, left open until `release`. */
export async function holdTransaction(
  url: string,
  sql: string,
  values: unknown[] = [],
): Promise<{ release(): Promise<void> }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query('BEGIN');
  await client.query(sql, values);
  return {
    async release() {
      await client.query('ROLLBACK');
      await client.end();
    },
  };
}

/** A session of its own on `url` that holds a row lock (SELECT ... FOR UPDATE) until `release`. */
export const holdRowLock = (url: string, table: string, id: number) =>
  holdTransaction(url, `SELECT 1 FROM ${table} WHERE id = $1 FOR UPDATE`, [id]);

/** Runs statements on `url` on a connection of its own. */
export async function onDatabase(url: string, sql: string, values: unknown[] = []): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await client.query(sql, values);
  } finally {
    await client.end();
  }
}

/** Waits until `check` holds, asking every 50 ms, up to `ms`; throws `what` when it never does. */
export async function eventually(check: () => Promise<boolean> | boolean, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
