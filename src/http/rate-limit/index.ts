import type { IncomingMessage } from 'node:http';
import { GraphQLError, getOperationAST, type DocumentNode, type GraphQLSchema } from 'graphql';
import type { Principal } from '../../auth/principal.js';
import type { RateLimitConfig } from '../../config.js';
import { maxPageSize } from '../../schema/pagination.js';
import type { OperationMeasure } from '../limits.js';
import { RateLimiter, type Decision } from './buckets.js';
import { DatabaseBucketStore } from './database-store.js';
import { RedisBucketStore } from './redis-store.js';

export type { Decision };

/** A full page of rows costs one point, so a plain request costs one and a nested read what its row count says. */
export const costOf = (rows: number) => Math.max(1, Math.ceil(rows / maxPageSize));

/** The bucket of a request without a valid key: its connection's peer. */
export const addressOf = (incoming: IncomingMessage | undefined) =>
  `address:${incoming?.socket.remoteAddress ?? 'unknown'}`;

/** The RateLimit-* fields of draft-ietf-httpapi-ratelimit-headers-06, and Retry-After on a refusal. */
export function rateLimitHeaders(decision: Decision): Record<string, string> {
  const headers: Record<string, string> = {
    'RateLimit-Limit': String(decision.limit),
    'RateLimit-Remaining': String(decision.remaining),
    'RateLimit-Reset': String(decision.reset),
  };
  if (!decision.admitted) headers['Retry-After'] = String(decision.retryAfter);
  return headers;
}

/** Why a request was refused, and when to come back. */
export function rateLimitedMessage(decision: Decision, cost: number): string {
  return `Rate limit exceeded: this request costs ${cost} point${cost === 1 ? '' : 's'} and the bucket holds ${decision.remaining} of ${decision.limit}; retry in ${decision.retryAfter} s`;
}

/** A refusal on /graphql: 429 whatever the client accepts (the plugin adds the headers to every answer it charged). */
export function rateLimitedError(decision: Decision, cost: number): GraphQLError {
  return new GraphQLError(rateLimitedMessage(decision, cost), {
    extensions: { code: 'RATE_LIMITED', cost, retryAfter: decision.retryAfter, http: { status: 429 } },
  });
}

/**
 * The rate limit of one gateway instance: a token bucket per API key (and per user for bearer
 * tokens: the principal's `holder`), charged the cost of each
 * operation from the row count of the operation limits (costOf), and one per client address,
 * charged a point for each request refused for want of a valid key. `/graphql` charges in the
 * envelop pipeline (plugin.ts); a REST call is charged once by its route, before anything runs.
 */
export class RateLimits {
  /** Requests already charged (a REST call), which their operations do not charge again. */
  private readonly charged = new WeakSet<Request>();
  /** What each request's bucket answered, for the headers of its response. */
  readonly decisions = new WeakMap<Request, Decision>();

  constructor(
    private readonly limiter: RateLimiter,
    readonly measure: OperationMeasure,
  ) {}

  /**
   * Charges `principal`'s bucket the cost of an operation with these variables; undefined when the
   * operation limits refuse it anyway (that refusal is free) or the request was charged already.
   */
  chargeOperation(
    request: Request,
    principal: Principal,
    schema: GraphQLSchema,
    document: DocumentNode,
    operationName: string | null | undefined,
    variables: Record<string, unknown>,
  ): { cost: number; decision: Decision | Promise<Decision> } | undefined {
    if (this.charged.has(request)) return undefined;
    // Settled for the whole request even when free, so a REST call's other operation is not charged either.
    this.charged.add(request);
    const operation = getOperationAST(document, operationName);
    if (!operation) return undefined;
    const measured = this.measure(schema, document, operation, variables);
    if ('refusal' in measured) return undefined;
    const cost = costOf(measured.rows);
    return { cost, decision: this.take(request, principal.holder, cost) };
  }

  /** Charges a request without a valid key to its address: a point. */
  chargeAddress(request: Request, address: string): Decision | Promise<Decision> {
    return this.take(request, address, 1);
  }

  private take(request: Request, key: string, cost: number): Decision | Promise<Decision> {
    this.charged.add(request);
    const decision = this.limiter.take(key, cost);
    const record = (settled: Decision) => (this.decisions.set(request, settled), settled);
    return decision instanceof Promise ? decision.then(record) : record(decision);
  }

  close(): Promise<void> {
    return this.limiter.close();
  }
}

/** The rate limit configured, with its buckets in the database or in Redis. */
export function createRateLimits(config: RateLimitConfig, measure: OperationMeasure): RateLimits {
  const policy = { rate: config.rate, burst: config.burst };
  const store = config.redisUrl
    ? new RedisBucketStore(config.redisUrl, config.redisPrefix, policy)
    : new DatabaseBucketStore(policy);
  return new RateLimits(new RateLimiter(policy, store), measure);
}
