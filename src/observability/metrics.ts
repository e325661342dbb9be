import { createHash, timingSafeEqual } from 'node:crypto';
import type { RequestListener } from 'node:http';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { ExecutionResult } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { logError } from './logger.js';
import { currentRequest, type RequestRecord } from './requests.js';

/** The gateway's metrics, apart from prom-client's global registry. */
export const registry = new Registry();
// Process metrics: CPU, heap (nodejs_heap_size_used_bytes), event-loop lag (nodejs_eventloop_lag_seconds), GC.
collectDefaultMetrics({ register: registry });

const registers = [registry];

const requestDuration = new Histogram({
  name: 'http_request_duration_seconds',
  help: 'HTTP requests (both doors) by route, GraphQL operation and status, and how long they took',
  labelNames: ['method', 'route', 'operation', 'status'],
  buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
  registers,
});

const requestStatements = new Histogram({
  name: 'http_request_sql_statements',
  help: 'SQL statements one HTTP request sent',
  labelNames: ['route', 'operation'],
  buckets: [0, 1, 2, 3, 5, 10, 20, 50, 100],
  registers,
});

const phaseDuration = new Histogram({
  name: 'graphql_phase_duration_seconds',
  help: 'Time spent in each GraphQL phase: parse, validate, context, execute, subscribe',
  labelNames: ['phase'],
  buckets: [0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.1, 0.5],
  registers,
});

const errorsByCode = new Counter({
  name: 'graphql_errors_total',
  help: 'GraphQL errors answered, by extensions.code (REST: the error that decided the answer)',
  labelNames: ['code'],
  registers,
});

const requestsByCredential = new Counter({
  name: 'http_requests_by_credential_total',
  help: 'HTTP requests (both doors) by the kind of credential that signed them in: API_KEY, BEARER_TOKEN, or none',
  labelNames: ['credential'],
  registers,
});

const refusals = new Counter({
  name: 'auth_refusals_total',
  help: 'Credentials refused, by reason code (INVALID_API_KEY, TOKEN_EXPIRED, UNKNOWN_KEY, ...)',
  labelNames: ['reason'],
  registers,
});

/** Counts a refused credential by its reason code (a fixed set: src/auth/refusals.ts). */
export function countRefusal(reason: string): void {
  refusals.inc({ reason });
}

const webhookAttempts = new Histogram({
  name: 'webhook_attempt_duration_seconds',
  help: 'Webhook delivery attempts of this instance by outcome (delivered: 2xx, gone: 410, failed: anything else), and how long each took',
  labelNames: ['outcome'],
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers,
});

/** Counts one webhook attempt by its outcome. */
export function countWebhookAttempt(outcome: 'delivered' | 'gone' | 'failed', seconds: number): void {
  webhookAttempts.observe({ outcome }, seconds);
}

/** What the gauges read when scraped; set by the app that owns the database and the subscriptions. */
interface Sources {
  pool?(): { totalCount: number; idleCount: number; waitingCount: number } | undefined;
  replicas?(): { location: string; lagMs: number; usable: boolean }[] | undefined;
  subscriptions?(): number;
  webhookAttempts?(): number;
}
const sources: Sources = {};

/** Tells the gauges where to read the pool and the open subscriptions. */
export function measure(from: Sources): void {
  Object.assign(sources, from);
}

new Gauge({
  name: 'db_pool_connections',
  help: 'PostgreSQL pool connections by state (in_use, idle); absent on the embedded database, which has no pool',
  labelNames: ['state'],
  registers,
  collect() {
    this.reset();
    const pool = sources.pool?.();
    if (!pool) return;
    this.set({ state: 'in_use' }, pool.totalCount - pool.idleCount);
    this.set({ state: 'idle' }, pool.idleCount);
  },
});

new Gauge({
  name: 'db_pool_waiting_requests',
  help: 'Queries waiting for a PostgreSQL pool connection',
  registers,
  collect() {
    this.reset();
    const pool = sources.pool?.();
    if (pool) this.set(pool.waitingCount);
  },
});

new Gauge({
  name: 'db_replica_lag_seconds',
  help: 'How far each read replica is behind the primary (time since it last held everything the primary had written)',
  labelNames: ['replica'],
  registers,
  collect() {
    this.reset();
    for (const replica of sources.replicas?.() ?? []) {
      // A replica never seen caught up has no finite lag; +Inf is what Prometheus keeps of it.
      this.set({ replica: replica.location }, replica.lagMs / 1000);
    }
  },
});

new Gauge({
  name: 'db_replica_usable',
  help: 'Whether each read replica answers reads now (1) or is left out, as it lags or does not answer (0)',
  labelNames: ['replica'],
  registers,
  collect() {
    this.reset();
    for (const replica of sources.replicas?.() ?? []) this.set({ replica: replica.location }, Number(replica.usable));
  },
});

new Gauge({
  name: 'graphql_subscriptions_open',
  help: 'Subscriptions open on this instance (Server-Sent Events and WebSocket)',
  registers,
  collect() {
    this.set(sources.subscriptions?.() ?? 0);
  },
});

new Gauge({
  name: 'webhook_attempts_in_flight',
  help: 'Webhook delivery attempts this instance has under way',
  registers,
  collect() {
    this.set(sources.webhookAttempts?.() ?? 0);
  },
});

/** Distinct operation names kept as label values; past it, new names count as "other" (a client must not grow the series without end). */
const MAX_OPERATION_LABELS = 500;
const operationLabels = new Set<string>();

function operationLabel(name: string | undefined): string {
  if (name === undefined) return '';
  if (operationLabels.has(name)) return name;
  if (operationLabels.size >= MAX_OPERATION_LABELS) return 'other';
  operationLabels.add(name);
  return name;
}

/** Observes a finished request. */
export function recordRequest(record: RequestRecord, route: string, status: number, seconds: number): void {
  const operation = operationLabel(record.operationName);
  requestDuration.observe({ method: record.method, route, operation, status }, seconds);
  requestStatements.observe({ route, operation }, record.statements);
  requestsByCredential.inc({ credential: record.caller?.credential ?? 'none' });
}

/** Counts errors by code. */
export function countErrors(errors: readonly { extensions?: Record<string, unknown> }[]): void {
  for (const error of errors) errorsByCode.inc({ code: String(error.extensions?.code ?? 'GRAPHQL_VALIDATION_FAILED') });
}

// Phase timers without a closure per request: a phase's start is kept in the request's record.
const timers = Object.fromEntries(
  ['parse', 'validate', 'context', 'execute', 'subscribe'].map((phase) => [phase, phaseDuration.labels(phase)]),
);
function startPhase(): void {
  const request = currentRequest();
  if (request) request.phaseStart = performance.now();
}
const endPhase = (timer: (typeof timers)[string]) => () => {
  const request = currentRequest();
  if (request) timer.observe((performance.now() - request.phaseStart) / 1000);
};
const parsed = endPhase(timers.parse!);
const validated = endPhase(timers.validate!);
const contextBuilt = endPhase(timers.context!);
const executed = { onExecuteDone: endPhase(timers.execute!) };
const subscribed = { onSubscribeResult: endPhase(timers.subscribe!) };

/** GraphQL phase durations and errors by code, for `/graphql` and the REST routes (which run no parse or validate per request). */
export function useMetrics(): Plugin {
  return {
    onParse: () => (startPhase(), parsed),
    onValidate: () => (startPhase(), validated),
    onContextBuilding: () => (startPhase(), contextBuilt),
    onExecute: () => (startPhase(), executed),
    onSubscribe: () => (startPhase(), subscribed),
    onExecutionResult({ result }) {
      const errors = (result as ExecutionResult | undefined)?.errors;
      if (errors?.length) countErrors(errors);
    },
  };
}

const digest = (value: string) => createHash('sha256').update(value).digest();

/** The challenge of a refused scrape (RFC 6750). */
const METRICS_CHALLENGE = 'Bearer realm="metrics"';

/** Answers a scrape: 401 without `Authorization: Bearer <token>` when a token is set. */
export async function scrape(
  authorization: string | undefined,
  token: string | undefined,
): Promise<{ status: number; type: string; body: string; challenge?: string }> {
  if (
    token !== undefined &&
    !(authorization?.startsWith('Bearer ') && timingSafeEqual(digest(authorization.slice(7)), digest(token)))
  ) {
    return {
      status: 401,
      type: 'text/plain',
      body: 'A bearer token is needed (METRICS_TOKEN)\n',
      challenge: METRICS_CHALLENGE,
    };
  }
  return { status: 200, type: registry.contentType, body: await registry.metrics() };
}

/** The listener of the separate metrics port: `/metrics` and nothing else. */
export function metricsListener(token: string | undefined): RequestListener {
  return async (request, response) => {
    if (request.url !== '/metrics' || request.method !== 'GET') return void response.writeHead(404).end();
    try {
      const answer = await scrape(request.headers.authorization, token);
      response
        .writeHead(answer.status, {
          'content-type': answer.type,
          ...(answer.challenge && { 'www-authenticate': answer.challenge }),
        })
        .end(answer.body);
    } catch (error) {
      logError(error, 'metrics could not be collected');
      response.writeHead(500).end();
    }
  };
}
