import type { Credential } from '../auth/credentials.js';
import type { Principal } from '../auth/principal.js';
import type { ModelName } from '../auth/tenancy.js';
import type { PlannedQuery, Row } from '../db/delegate.js';
import type { LiveHub } from '../live/hub.js';
import type { Webhooks } from '../webhooks/index.js';
import { unauthenticated } from './errors.js';

/** The DataLoaders of one request, so their batches and caches never outlive it nor cross callers. */
export interface Loaders {
  /**
   * The row of `model` with this id, loaded with `selection`, or null when the caller may not see it:
   * the rows asked for in one tick with the same model and selection cost one statement.
   */
  row<M extends ModelName>(model: M, selection: PlannedQuery<M>, id: number): Promise<Row<M> | null>;
}

/** Made per request (src/http/context.ts); an operation runs as the principal of its API key or bearer token, or anonymously without one. */
export interface Context {
  request: Request;
  /** What the caller presented, so a subscription can ask again whether it still holds. */
  credential: Credential | null;
  /** Null for a request without a credential, which may ask only for public fields (src/http/principal-required.ts). */
  principal: Principal | null;
  /** The instance's subscriptions. */
  live: LiveHub;
  /** The instance's webhooks; absent while they are off (no WEBHOOK_ENCRYPTION_KEY). */
  webhooks?: Webhooks;
  /** Batches what the read plan and Pothos's planned query cannot reach. */
  loaders: Loaders;
  /** A mutation sent with an Idempotency-Key (src/http/idempotency.ts); undefined for any other operation. */
  keyed?: KeyedRequest;
  /** A subscription's: the cursor of the event it answered last, which its result carries (src/http/event-ids.ts). */
  lastEventCursor?: string;
}

/**
 * A mutation sent with an Idempotency-Key: its changes are numbered in the order they run (steps), and
 * an attempt that took the key over from one that ended without an answer skips the steps that committed.
 */
export interface KeyedRequest {
  /** The key's row (its id, as text: a bigint), which the change log's entries of its steps name. */
  id: string;
  /** Which attempt this is: a step of an older one is refused (its fence). */
  attempt: number;
  /** The number of the next change. */
  step: number;
  /** Steps an earlier attempt committed: their number, and the ids of the rows they wrote, in order. */
  committed: ReadonlyMap<number, number[]>;
  /** The answer holds a secret shown once (a new key's, an invite's token): it is never kept in the database. */
  secret?: true;
}

/** The extension that opens a root field to callers without an API key (registerWithInvite); principalRequired reads it. */
export const publicField = { public: true } as const;

/** The caller's principal: every field but the public ones runs with one. */
export function principalOf(ctx: Pick<Context, 'principal'>): Principal {
  // principalRequired refuses such a request before it runs; this keeps that true field by field.
  if (!ctx.principal) throw unauthenticated();
  return ctx.principal;
}
