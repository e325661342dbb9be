import { isDeepStrictEqual } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { graphql, send, type HttpRequest } from './requests.js';
import type { KeyRing } from './keys.js';
import { nestedQuery } from './queries.js';
import type { ChildServer } from './servers.js';

export interface Sample {
  /** SQL statements each request caused, one request at a time. */
  statements: number[];
  /** Parsed bodies in order, with the X-Total-Count header where there is one: what the answer check compares. */
  bodies: unknown[];
  /** Requests that failed: a non-2xx status or a GraphQL `errors` entry. */
  failed: number;
  /** The first few distinct failure messages. */
  messages: string[];
}

/**
 * Sends the requests one at a time, reading the server's statement counter around each, and
 * checks every answer: the load generator only sees statuses, and GraphQL reports errors in 200s.
 */
export async function sample(server: ChildServer, requests: HttpRequest[]): Promise<Sample> {
  const result: Sample = { statements: [], bodies: [], failed: 0, messages: [] };
  for (const request of requests) {
    const before = await server.statements();
    const { status, body, total } = await send(server.url, request);
    result.statements.push((await server.statements()) - before);
    result.bodies.push(total === null ? body : { 'X-Total-Count': total, body });
    const errors = (body as { errors?: { message: string }[] } | null)?.errors;
    const message =
      status < 200 || status > 299
        ? `HTTP ${status}: ${JSON.stringify(body).slice(0, 160)}`
        : errors
          ? errors[0]?.message
          : undefined;
    if (message === undefined) continue;
    result.failed++;
    if (result.messages.length < 3 && !result.messages.includes(message)) result.messages.push(message);
  }
  return result;
}

/** How long freshPrincipals waits for the gateway to act on the forget notification before it gives up. */
const FORGET_TIMEOUT_MS = 5_000;

/**
 * Makes every key's principal (and the bearer token's) fresh in the gateway's cache, so that a sample taken within the cache's
 * 10 s counts what each request costs and not a key's periodic refresh (which the figure under load
 * still holds). Each key's first request after the forget must send statements: the proof it was
 * forgotten and is now cached again.
 */
export async function freshPrincipals(gateway: ChildServer, keys: KeyRing): Promise<void> {
  await keys.forget();
  for (const key of [...Array.from({ length: keys.count }, (_, i) => i), 'token' as const]) {
    for (const deadline = Date.now() + FORGET_TIMEOUT_MS; ; await sleep(20)) {
      const before = await gateway.statements();
      await send(gateway.url, graphql(keys, key, '{ __typename }', {}));
      if ((await gateway.statements()) > before) break;
      if (Date.now() > deadline)
        throw new Error(`the gateway did not forget key ${key} within ${FORGET_TIMEOUT_MS} ms`);
    }
  }
  // The refresh also records the key's last use, off the request's path.
  await gateway.settle();
}

/** Where two JSON values first differ, e.g. `data.whiteboards.edges[3].node.updatedAt: "..." vs "..."`; undefined when equal. */
export function firstDifference(a: unknown, b: unknown, path = ''): string | undefined {
  if (isDeepStrictEqual(a, b)) return undefined;
  if (a && b && typeof a === 'object' && typeof b === 'object' && Array.isArray(a) === Array.isArray(b)) {
    if (Array.isArray(a) && Array.isArray(b) && a.length !== b.length)
      return `${path || '.'}: ${a.length} vs ${b.length} items`;
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const key of keys) {
      const difference = firstDifference(
        (a as Record<string, unknown>)[key],
        (b as Record<string, unknown>)[key],
        Array.isArray(a) ? `${path}[${key}]` : path ? `${path}.${key}` : key,
      );
      if (difference) return difference;
    }
  }
  return `${path || '.'}: ${JSON.stringify(a)?.slice(0, 80)} vs ${JSON.stringify(b)?.slice(0, 80)}`;
}

interface Leaf {
  path: string;
  value: unknown;
}

const timestamp = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:?\d\d)?$/;
const zone = /(Z|[+-]\d\d:?\d\d)$/;

/**
 * A value as both sides can agree on it: timestamps in one format (the columns hold UTC, which
 * PostGraphile prints without a zone), numbers given as text (X-Total-Count, bigint) as numbers, and
 * a stored file's name without the /files/ prefix of the URL the gateway serves it at.
 */
function normalize(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  if (timestamp.test(value)) return new Date(zone.test(value) ? value : `${value}Z`).toISOString();
  if (/^-?\d+(\.\d+)?$/.test(value)) return Number(value);
  return value.replace(/^\/files\//, '');
}

/**
 * The scalar values of a JSON answer in document order, whatever the field names and envelope
 * (edges/node, nodes, data), less those at paths `ignore` matches. Cursors are opaque and each
 * server writes its own: only whether there is one is compared.
 */
function leaves(value: unknown, ignore?: RegExp, path = ''): Leaf[] {
  if (Array.isArray(value)) return value.flatMap((item, i) => leaves(item, ignore, `${path}[${i}]`));
  if (value !== null && typeof value === 'object')
    return Object.entries(value).flatMap(([key, item]) => leaves(item, ignore, path ? `${path}.${key}` : key));
  if (ignore?.test(path)) return [];
  return [{ path: path || '.', value: /cursor$/i.test(path) ? value !== null : normalize(value) }];
}

/** Where two answers' scalar values first differ, naming each side's path; undefined when they hold the same values in the same order. */
function firstLeafDifference(a: unknown, b: unknown, ignore?: RegExp): string | undefined {
  const left = leaves(a, ignore);
  const right = leaves(b, ignore);
  for (let i = 0; i < Math.max(left.length, right.length); i++) {
    const [x, y] = [left[i], right[i]];
    if (x && y && isDeepStrictEqual(x.value, y.value)) continue;
    if (!x || !y) return `value ${i + 1}: one answer ends (${left.length} vs ${right.length} values)`;
    return `value ${i + 1}: ${x.path} = ${JSON.stringify(x.value)} vs ${y.path} = ${JSON.stringify(y.value)}`;
  }
  return undefined;
}

/**
 * The answer check made before any load: the first `count` requests of a case go, one at a time, to
 * the gateway and to each other server that answers the case; the floor must send the gateway's
 * very JSON, the peer the same values in the same order (its field names and envelope differ).
 * Returns a loud note per server that answers differently: its figures are then not comparable.
 */
export async function checkAnswers(
  gateway: { server: ChildServer; request: (i: number) => HttpRequest },
  others: { server: ChildServer; request: (i: number) => HttpRequest; sameJson: boolean }[],
  count: number,
  ignore?: RegExp,
): Promise<{ notes: string[]; checked: string[] }> {
  const indexes = Array.from({ length: count }, (_, i) => i);
  const expected = (await sample(gateway.server, indexes.map(gateway.request))).bodies;
  const notes: string[] = [];
  const checked: string[] = [];
  for (const other of others) {
    const bodies = (await sample(other.server, indexes.map(other.request))).bodies;
    const mismatches = expected
      .map((body, i) =>
        other.sameJson ? firstDifference(body, bodies[i]) : firstLeafDifference(body, bodies[i], ignore),
      )
      .filter((difference) => difference !== undefined);
    if (mismatches.length === 0) checked.push(other.server.name);
    else
      notes.push(
        `**ANSWERS DIFFER**: the ${other.server.name}'s answer differs from the gateway's in ${mismatches.length}/${count} requests, first at ${mismatches[0]}`,
      );
  }
  return { notes, checked };
}

/**
 * The statement target, checked directly: the nested read over 10 and 50 boards, and at one,
 * two and three levels, must cost the same statements. Run after a warm-up, with the keys fresh in the cache.
 */
export async function statementInvariance(
  gateway: ChildServer,
  keys: KeyRing,
): Promise<{ constant: boolean; text: string }> {
  const count = async (levels: number, first: number) => {
    const query = nestedQuery(levels);
    const body = JSON.stringify({ query, variables: { org: 1, first } });
    const request: HttpRequest = {
      method: 'POST',
      path: '/graphql',
      headers: { 'content-type': 'application/json', ...keys.headers(0) },
      body,
    };
    await send(gateway.url, request); // the first run of a new document may cost a cache refresh
    await freshPrincipals(gateway, keys);
    return (await sample(gateway, [request])).statements[0];
  };
  const byPage = [await count(3, 10), await count(3, 50)];
  const byDepth = [await count(1, 50), await count(2, 50), await count(3, 50)];
  const all = [...byPage, ...byDepth];
  return {
    constant: all.every((n) => n === all[0]),
    text: `nested read: ${byPage.join(' / ')} statements for 10 / 50 boards; ${byDepth.join(' / ')} at 1 / 2 / 3 levels`,
  };
}
