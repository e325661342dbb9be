import type { PrismaClient } from '../generated/prisma/client.js';
import { currentRead } from './read-routing.js';
import { currentScope } from './row-security.js';

/** The part of Prisma's request batcher used here (its client's `_requestHandler.dataloader`). */
interface Batcher {
  request(request: unknown): Promise<unknown>;
  options: unknown;
}

/**
 * What decides where a statement runs and what it may see: its read scope (row-level security) or
 * its replica read. Elsewhere every caller's lookups run alike, and merging them is only cheaper.
 */
const contextOf = (): object | undefined => currentScope() ?? currentRead();

/**
 * Prisma merges every `findUnique` of one model and shape sent in one tick into one statement, and
 * runs it in the async context of the first caller: across requests, the others' lookups ran under
 * that caller's row-level security scope and on its replica. Each read scope and each replica read
 * (one per query operation) gets a batcher of its own instead, so its lookups are still merged with
 * each other and with no other operation's. Prisma's batcher is not public: a Prisma that changes it fails
 * here, at the start, rather than merging requests again.
 */
export function batchPerRequest(client: PrismaClient): void {
  const handler = (client as unknown as { _requestHandler?: { dataloader?: Batcher } })._requestHandler;
  const shared = handler?.dataloader;
  if (!shared || typeof shared.request !== 'function' || !shared.options)
    throw new Error("Prisma's request batcher is not where this version expected it (src/db/batching.ts)");
  const Batcher = shared.constructor as new (options: unknown) => Batcher;
  const own = new WeakMap<object, Batcher>();
  const request = shared.request.bind(shared);
  shared.request = (query) => {
    const context = contextOf();
    if (!context) return request(query);
    let batcher = own.get(context);
    if (!batcher) own.set(context, (batcher = new Batcher(shared.options)));
    return batcher.request(query);
  };
}
