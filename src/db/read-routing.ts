import { AsyncLocalStorage } from 'node:async_hooks';
import type { SqlDriverAdapter, SqlDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import { fenceOf, recordWrite } from './read-fence.js';
import { withinAnswerTime } from './polls.js';
import type { Replica, ReplicaSet } from './replicas.js';
import { isDatabaseUnavailable, isReadOnlyRefusal } from './unavailable.js';

/** The replica a read was given; every statement outside such a read goes to the primary. */
interface Read {
  replica: Replica | undefined;
}

const reads = new AsyncLocalStorage<Read>();

/** The read the current statement belongs to, if any (an object of its own per read). */
export const currentRead = (): object | undefined => reads.getStore();

/** Query operations on the replicas, with each caller's own writes. */
export interface ReplicaReads {
  set: ReplicaSet;
  /**
   * Runs a query operation's `work` with its statements (Prisma's reads, read plans) on the next
   * usable replica that has replayed the caller's last write; on the primary when there is none.
   * While the primary is away, on a replica that holds all it received (ReplicaSet's outage rule).
   */
  read<T>(userId: number | undefined, work: () => T | Promise<T>): Promise<T>;
  /** Records that the user has written, once the mutation has committed. */
  wrote(userId: number): Promise<void>;
}

/** `primary` runs a statement on the primary as the request's own (counted). */
export function replicaReads(
  set: ReplicaSet,
  primary: (sql: string, args: unknown[]) => Promise<unknown[][]>,
): ReplicaReads {
  return {
    set,
    async read(userId, work) {
      // No replica could answer: no need to ask the primary how far the caller's writes reach.
      if (!set.anyUsable()) return work();
      let fence = 0n;
      if (!set.primaryAway) {
        try {
          fence = await withinAnswerTime(fenceOf(primary, userId));
        } catch (error) {
          // A primary that does not answer in a poll's time is away for this read: the outage rule serves it.
          if (!isDatabaseUnavailable(error)) throw error;
          set.primaryFailed(error);
        }
      }
      const replica = set.pick(fence);
      return replica ? reads.run({ replica }, async () => work()) : work();
    },
    wrote: (userId) => recordWrite(primary, userId),
  };
}

/**
 * What a replica cannot answer that the primary can, by PostgreSQL's code and by the kind Prisma's
 * driver adapter maps it to: a write (25006, read-only transaction), a statement cancelled by the
 * replay (40001, conflict with recovery), and a table or column that a migration the replica has not
 * replayed yet adds (42P01, 42703; the primary answers the same error when it is a real one).
 */
const replicaOnlyCodes = new Set(['25006', '40001', '42P01', '42703']);
const replicaOnlyKinds = new Set(['TransactionWriteConflict', 'TableDoesNotExist', 'ColumnNotFound']);

function replicaCannotAnswer(error: unknown): boolean {
  if (isDatabaseUnavailable(error)) return true;
  for (let e = error as { code?: unknown; kind?: unknown; cause?: unknown } | undefined; e; e = e.cause as typeof e) {
    if (replicaOnlyCodes.has(e.code as string) || replicaOnlyKinds.has(e.kind as string)) return true;
  }
  return false;
}

/**
 * Sends a statement to the replica of the current read, else to the primary; while the primary is
 * away, a statement outside a read (a key's lookup, a subscription's read) goes to a replica too, and
 * such a SELECT waits for the primary no longer than a poll would when a replica could take it. A
 * replica that fails as a server that is away fails is left out; that or a statement it cannot answer
 * (a write) goes on to the primary, with the rest of the read: the client sees no error.
 */
export async function routed<T>(
  replicas: ReplicaSet,
  onReplica: (replica: Replica) => Promise<T>,
  onPrimary: () => Promise<T>,
  sql: string,
): Promise<T> {
  const read = reads.getStore();
  let replica = read ? read.replica : replicas.primaryAway ? replicas.pick(0n) : undefined;
  if (!replica) {
    // Only a SELECT: a write that did not answer in time may still commit, and must not run twice.
    if (read || !replicas.couldServeWithoutPrimary() || !/^\s*SELECT\b/i.test(sql)) return onPrimary();
    try {
      return await withinAnswerTime(onPrimary());
    } catch (error) {
      if (!isDatabaseUnavailable(error)) throw error;
      replicas.primaryFailed(error);
      replica = replicas.pick(0n);
      if (!replica) throw error;
    }
  }
  try {
    return await onReplica(replica);
  } catch (error) {
    if (!replicaCannotAnswer(error)) throw error;
    if (read) read.replica = undefined;
    // A write it refused says nothing of its health.
    if (isDatabaseUnavailable(error) && !isReadOnlyRefusal(error)) replicas.failed(replica, error);
    return onPrimary();
  }
}

/**
 * Prisma's driver adapter over the primary and the replicas: reads (`queryRaw`) go where `routed`
 * says; writes, transactions and scripts always to the primary.
 */
export function routedAdapter(primary: SqlDriverAdapterFactory, replicas: ReplicaSet): SqlDriverAdapterFactory {
  return {
    provider: primary.provider,
    adapterName: primary.adapterName,
    async connect(): Promise<SqlDriverAdapter> {
      const main = await primary.connect();
      const byReplica = new Map<Replica, SqlDriverAdapter>();
      for (const replica of replicas.replicas) byReplica.set(replica, await replica.adapter.connect());
      return {
        provider: main.provider,
        adapterName: main.adapterName,
        queryRaw: (query) =>
          routed(
            replicas,
            (replica) => byReplica.get(replica)!.queryRaw(query),
            () => main.queryRaw(query),
            query.sql,
          ),
        executeRaw: (query) => main.executeRaw(query),
        executeScript: (script) => main.executeScript(script),
        startTransaction: (isolationLevel) => main.startTransaction(isolationLevel),
        getConnectionInfo: main.getConnectionInfo?.bind(main),
        async dispose() {
          await Promise.all([main, ...byReplica.values()].map((adapter) => adapter.dispose()));
        },
      };
    },
  };
}
