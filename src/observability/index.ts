import type { RequestListener } from 'node:http';
import type { MiddlewareHandler } from 'hono';
import { routePath } from 'hono/route';
import type { Plugin } from 'graphql-yoga';
import { requestLogger } from './logger.js';
import { recordRequest, useMetrics } from './metrics.js';
import { countUnavailableAnswer } from './outage.js';
import { currentRequest, observeRequests, useOperationRecord, type RequestRecord } from './requests.js';
import { endHttpSpan, tracedListener, tracing, useGraphQLSpans } from './tracing.js';

/** Whether metrics are collected: only when they can be read (a token or a port of their own). */
export const metricsOn = (config: { metricsToken?: string; metricsPort?: number }): boolean =>
  config.metricsToken !== undefined || config.metricsPort !== undefined;

function logRequest(record: RequestRecord, route: string, status: number, ms: number): void {
  const { caller } = record;
  requestLogger().info(
    {
      requestId: record.id,
      method: record.method,
      path: record.path,
      route,
      operation: record.operationName,
      operationType: record.operationType,
      status,
      ms: Math.round(ms * 100) / 100,
      userId: caller?.userId,
      credential: caller?.credential,
      keyPrefix: caller?.keyPrefix,
      organizationIds: caller?.organizationIds,
      statements: record.statements,
    },
    'request',
  );
}

function report(metrics: boolean) {
  return (record: RequestRecord, status: number) => {
    const ms = performance.now() - record.start;
    // Only `/graphql` has no route noted by the router, and its path is its route.
    const route = record.route ?? record.path;
    if (requestLogger().isLevelEnabled('info')) logRequest(record, route, status, ms);
    if (status === 503) countUnavailableAnswer();
    if (metrics) recordRequest(record, route, status, ms / 1000);
    if (record.span) endHttpSpan(record, route, status);
  };
}

/** The listener with a request id, a log line per request, metrics and a server span when those are on. */
export function observedListener(listener: RequestListener, options: { metrics: boolean }): RequestListener {
  return observeRequests(tracing() ? tracedListener(listener) : listener, report(options.metrics));
}

/** The Yoga plugins that note the operation and measure and trace its phases, as far as those are on. */
export function observabilityPlugins(options: { metrics: boolean }): Plugin[] {
  return [useOperationRecord(), ...(options.metrics ? [useMetrics()] : []), ...(tracing() ? [useGraphQLSpans()] : [])];
}

/** Notes the router's matched route (a bounded label: `/files/:name`, not the file's name). */
export const noteRoute: MiddlewareHandler = async (c, next) => {
  await next();
  const request = currentRequest();
  if (request) request.route = routePath(c);
};
