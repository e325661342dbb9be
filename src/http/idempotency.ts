import { createHash } from 'node:crypto';
import { getOperationAST, print, type DocumentNode, type ExecutionResult } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { db } from '../db/index.js';
import type { Context, KeyedRequest } from '../schema/context.js';
import { badIdempotencyKey, idempotencyKeyInUse, idempotencyKeyReused } from '../schema/errors.js';
import { contextOf, type GuardedOperation } from './guard.js';

/*
 * Idempotency keys (the IETF draft's `Idempotency-Key` header) on mutations over HTTP: a GraphQL POST
 * and a REST POST, whose route runs its mutation through this same pipeline. The first successful
 * answer is kept with the caller, the key and a hash of the request (idempotency_key); a retry gets
 * it again with `Idempotent-Replayed: true` and changes nothing. A request that ended without an
 * answer (an error, a lost connection) leaves its key to a retry, which skips the changes that
 * committed (schema/changes.ts, nextStep) and answers once. Queries, subscriptions and WebSocket
 * operations ignore the header: they change nothing, or cannot send it.
 */

export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';
export const REPLAYED_HEADER = 'Idempotent-Replayed';

/** The draft leaves the key's form to the server: 1 to 255 printable ASCII characters (a UUID fits). */
const KEY_FORM = /^[\x20-\x7e]{1,255}$/;

/** How long a key is kept, and how long an attempt holds it before a retry may take it over. */
export interface IdempotencyOptions {
  /** @default 24 (IDEMPOTENCY_TTL_HOURS) */
  ttlHours: number;
  /** Past this, a request can no longer be running: the database bounds of a request (db/pool.ts), and a margin. */
  leaseMs: number;
}

/** The requests whose answer was a stored one: both doors write the header from here. */
export const replayed = new WeakSet<Request>();

// Printed once per parsed document: Yoga's document cache (and the REST table) hand back the same one.
const printed = new WeakMap<DocumentNode, string>();

/** The request as executed: its document, operation name and variables. */
function requestHash({ document, operationName, variableValues }: GuardedOperation): string {
  let text = printed.get(document);
  if (text === undefined) printed.set(document, (text = print(document)));
  return createHash('sha256')
    .update(text)
    .update('\0')
    .update(operationName ?? '')
    .update('\0')
    .update(JSON.stringify(variableValues ?? {}))
    .digest('hex');
}

// Times are UTC without a zone, as Prisma writes them.
const NOW = `timezone('UTC', now())`;

// One statement claims a new key or reads the one there: a row inserted by a transaction that
// committed while this one waited is not in its snapshot, so that case reads nothing and claims again.
const claimSql = `WITH claimed AS (
  INSERT INTO idempotency_key (caller, key, request_hash, expires_at, lease_until)
  VALUES ($1, $2, $3, ${NOW} + $4::int * interval '1 hour', ${NOW} + $5::int * interval '1 millisecond')
  ON CONFLICT DO NOTHING RETURNING id
)
SELECT id::text, 'CLAIMED', 1, NULL, NULL, 0, false FROM claimed
UNION ALL
SELECT id::text, state, attempt, request_hash, result,
  ceil(extract(epoch FROM lease_until - ${NOW}))::int, expires_at <= ${NOW}
FROM idempotency_key WHERE caller = $1 AND key = $2 AND NOT EXISTS (SELECT FROM claimed)`;

/** A key past its time is a new key: its row goes (with its id, which old log entries name). */
const expiredSql = `DELETE FROM idempotency_key WHERE caller = $1 AND key = $2 AND expires_at <= ${NOW}`;

/** An attempt takes over a key whose lease ran out; it waits for a step of the older attempt that is committing (its fence). */
const takeOverSql = `UPDATE idempotency_key SET attempt = attempt + 1, lease_until = ${NOW} + $3::int * interval '1 millisecond'
WHERE id = $1::bigint AND attempt = $2 AND state = 'RUNNING' AND lease_until <= ${NOW} RETURNING attempt`;

/** The steps earlier attempts committed, read after the takeover (so after the older attempt's last commit). */
const stepsSql = `SELECT request_step, array_agg(entity_id ORDER BY id) FROM user_action_log
WHERE request_id = $1::bigint GROUP BY request_step`;

const storeSql = `UPDATE idempotency_key SET state = 'DONE', result = $3, lease_until = ${NOW}
WHERE id = $1::bigint AND attempt = $2`;

/** An attempt without an answer to keep gives its key up at once: a retry need not wait for the lease. */
const releaseSql = `UPDATE idempotency_key SET lease_until = ${NOW} WHERE id = $1::bigint AND attempt = $2 AND state = 'RUNNING'`;

type Claim = { keyed: KeyedRequest } | { answer: ExecutionResult; replay?: true };

const run = (sql: string, values: unknown[]) => db().queryRows(sql, values);

/** Claims `key` for this request: a new key, or one whose last attempt ended without an answer; else the answer to give. */
async function claim(caller: string, key: string, hash: string, options: IdempotencyOptions): Promise<Claim> {
  for (let tries = 0; ; tries++) {
    const [row] = await run(claimSql, [caller, key, hash, options.ttlHours, options.leaseMs]);
    if (!row) {
      // Inserted by a request that committed while this statement waited; read again.
      if (tries < 2) continue;
      return { answer: { errors: [idempotencyKeyInUse(1)] } };
    }
    const [id, state, attempt, storedHash, result, leaseSeconds, expired] = row as [
      string,
      string,
      number,
      string | null,
      string | null,
      number,
      boolean,
    ];
    if (state === 'CLAIMED') return { keyed: { id, attempt, step: 0, committed: new Map() } };
    if (expired) {
      await run(expiredSql, [caller, key]);
      continue;
    }
    if (storedHash !== hash) return { answer: { errors: [idempotencyKeyReused()] } };
    if (state === 'DONE') return { answer: JSON.parse(result!) as ExecutionResult, replay: true };
    const [taken] = leaseSeconds > 0 ? [] : await run(takeOverSql, [id, attempt, options.leaseMs]);
    if (!taken) return { answer: { errors: [idempotencyKeyInUse(Math.max(1, leaseSeconds))] } };
    const steps = await run(stepsSql, [id]);
    return {
      keyed: {
        id,
        attempt: taken[0] as number,
        step: 0,
        committed: new Map(steps.map(([step, ids]) => [step as number, ids as number[]])),
      },
    };
  }
}

/** Whether the result is one to keep: a single answer without errors. */
const complete = (result: unknown): result is ExecutionResult =>
  !!result && !(Symbol.asyncIterator in (result as object)) && !(result as ExecutionResult).errors?.length;

/**
 * Honours `Idempotency-Key` on mutations sent by POST (GraphQL over HTTP, REST routes); registered
 * after the operation guard, so a refused request claims no key. Only a complete answer is kept: an
 * answer with errors (even beside data, a partial one) is given and the key left to a retry, which
 * makes again only the changes that did not commit. An answer holding a secret shown once (a new
 * key's, an invite's token) is never kept: its retry is told the change was made and its secret
 * cannot be shown again. An anonymous request (the public mutation) has no caller to keep a key for,
 * and ignores it.
 */
export function useIdempotencyKeys(options: IdempotencyOptions): Plugin<Context> {
  return {
    onExecute({ args, setResultAndStopExecution }) {
      const context = contextOf(args);
      const { request, principal } = context;
      if (request.method !== 'POST' || !principal) return;
      const key = request.headers.get(IDEMPOTENCY_KEY_HEADER);
      if (key === null || getOperationAST(args.document, args.operationName)?.operation !== 'mutation') return;
      if (!KEY_FORM.test(key)) return setResultAndStopExecution({ errors: [badIdempotencyKey()] });
      return claim(principal.holder, key, requestHash(args), options).then((claimed) => {
        if ('answer' in claimed) {
          if (claimed.replay) replayed.add(request);
          return setResultAndStopExecution(claimed.answer);
        }
        const { id, attempt } = claimed.keyed;
        context.keyed = claimed.keyed;
        return {
          // The database may be away: the answer is given all the same, and the lease runs out instead.
          onExecuteDone: async ({ result }: { result: unknown }): Promise<void> => {
            await (complete(result) && !context.keyed?.secret
              ? run(storeSql, [id, attempt, JSON.stringify({ data: result.data })])
              : run(releaseSql, [id, attempt])
            ).catch(() => undefined);
          },
        };
      });
    },
    onResponse({ request, response }) {
      if (replayed.has(request)) response.headers.set(REPLAYED_HEADER, 'true');
    },
  };
}
