import type { RequestListener } from 'node:http';
import { context, SpanKind, SpanStatusCode, trace, type Span, type SpanOptions, type Tracer } from '@opentelemetry/api';
import type { Plugin } from 'graphql-yoga';
import { currentRequest, type RequestRecord } from './requests.js';

/** Set while tracing is on; everything here is skipped otherwise, so tracing off costs a branch. */
let tracer: Tracer | undefined;

export const tracing = (): boolean => tracer !== undefined;

/**
 * Loads the OpenTelemetry SDK (only now: with tracing off it is never imported) and starts
 * exporting spans. Returns what flushes the spans left and stops.
 */
export async function startTracing(serviceName: string): Promise<() => Promise<void>> {
  const { startSdk } = await import('./otel-sdk.js');
  const stop = startSdk(serviceName);
  tracer = trace.getTracer('whiteboard-gateway');
  return async () => {
    tracer = undefined;
    await stop();
  };
}

function failed(span: Span, error: unknown): never {
  span.recordException(error as Error);
  span.setStatus({ code: SpanStatusCode.ERROR });
  span.end();
  throw error;
}

/** Runs the listener under a server span of the request, ended by `endHttpSpan`. */
export function tracedListener(listener: RequestListener): RequestListener {
  return (request, response) => {
    const record = currentRequest()!;
    const span = tracer!.startSpan(`${record.method} ${record.path}`, {
      kind: SpanKind.SERVER,
      attributes: { 'http.request.method': record.method, 'url.path': record.path, 'http.request.id': record.id },
    });
    record.span = span;
    context.with(trace.setSpan(context.active(), span), listener, undefined, request, response);
  };
}

export function endHttpSpan(record: RequestRecord, route: string, status: number): void {
  const span = record.span!;
  // Named by the route, as OpenTelemetry's conventions ask, once the route is known.
  span.updateName(`${record.method} ${route}`);
  span.setAttributes({ 'http.route': route, 'http.response.status_code': status });
  if (record.operationName) span.setAttribute('graphql.operation.name', record.operationName);
  if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
  span.end();
}

/** A span around `run`, current while it runs; for phases that may finish later. */
async function inSpan<T>(name: string, run: () => T | Promise<T>, options: SpanOptions = {}): Promise<T> {
  return tracer!.startActiveSpan(name, options, async (span) => {
    let result: T;
    try {
      result = await run();
    } catch (error) {
      failed(span, error);
    }
    span.end();
    return result;
  });
}

/** A span around a synchronous phase. */
function syncSpan(name: string) {
  return (_payload: unknown, wrapped: () => void) =>
    tracer!.startActiveSpan(name, (span) => {
      try {
        wrapped();
      } catch (error) {
        failed(span, error);
      }
      span.end();
    });
}

/** Spans for GraphQL's phases (context building is async and left to its own statements' spans). */
export function useGraphQLSpans(): Plugin {
  return {
    instrumentation: {
      parse: syncSpan('graphql.parse'),
      validate: syncSpan('graphql.validate'),
      execute: (_payload, wrapped) => inSpan('graphql.execute', wrapped),
      subscribe: (_payload, wrapped) => inSpan('graphql.subscribe', wrapped),
    },
  };
}

/** A client span for one statement of the gateway's own (a read plan), which Prisma's instrumentation does not see. */
export function traceStatement<T>(sql: string, run: () => Promise<T>): Promise<T> {
  return inSpan('db.query', run, {
    kind: SpanKind.CLIENT,
    attributes: { 'db.system.name': 'postgresql', 'db.query.text': sql },
  });
}
