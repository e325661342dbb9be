import { isDeepStrictEqual } from 'node:util';
import { send, type HttpRequest } from './cases.js';
import type { KeyRing } from './keys.js';
import { nestedQuery } from './queries.js';
import type { ChildServer } from './servers.js';

export interface Sample {
  /** SQL statements each request caused, one request at a time. */
  statements: number[];
  /** Parsed bodies in order, with the X-Total-Count header where there is one: what is compared with the floor. */
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
    const message = status < 200 || status > 299 ? `HTTP ${status}: ${JSON.stringify(body).slice(0, 160)}` : errors ? errors[0]?.message : undefined;
    if (message === undefined) continue;
    result.failed++;
    if (result.messages.length < 3 && !result.messages.includes(message)) result.messages.push(message);
  }
  return result;
}

/** Where two JSON values first differ, e.g. `data.whiteboards.edges[3].node.updatedAt: "..." vs "..."`; undefined when equal. */
export function firstDifference(a: unknown, b: unknown, path = ''): string | undefined {
  if (isDeepStrictEqual(a, b)) return undefined;
  if (a && b && typeof a === 'object' && typeof b === 'object' && Array.isArray(a) === Array.isArray(b)) {
    if (Array.isArray(a) && Array.isArray(b) && a.length !== b.length) return `${path || '.'}: ${a.length} vs ${b.length} items`;
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const key of keys) {
      const difference = firstDifference((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key], Array.isArray(a) ? `${path}[${key}]` : path ? `${path}.${key}` : key);
      if (difference) return difference;
    }
  }
  return `${path || '.'}: ${JSON.stringify(a)?.slice(0, 80)} vs ${JSON.stringify(b)?.slice(0, 80)}`;
}

/** Compares the gateway's answers with the floor's, pair by pair; a note when they differ. */
export function compareWithFloor(gateway: unknown[], floor: unknown[]): string | undefined {
  const mismatches = gateway
    .map((body, i) => firstDifference(body, floor[i]))
    .filter((difference): difference is string => difference !== undefined);
  if (mismatches.length === 0) return undefined;
  return `floor JSON differs from the gateway's in ${mismatches.length}/${gateway.length} answers, first at ${mismatches[0]}`;
}

/**
 * The statement target, checked directly: the nested read over 10 and 50 boards, and at one,
 * two and three levels, must cost the same statements. Run after a warm-up, so the key is cached.
 */
export async function statementInvariance(gateway: ChildServer, keys: KeyRing): Promise<{ constant: boolean; text: string }> {
  const count = async (levels: number, first: number) => {
    const query = nestedQuery(levels);
    const body = JSON.stringify({ query, variables: { org: 1, first } });
    const request: HttpRequest = { method: 'POST', path: '/graphql', headers: { 'content-type': 'application/json', ...keys.headers(0) }, body };
    await send(gateway.url, request); // the first run of a new document may cost a cache refresh
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
