import autocannon, { type RequestSpec } from 'autocannon';
import type { HttpRequest } from './requests.js';

export interface LoadSource {
  /** Request number i. */
  request(i: number): HttpRequest;
  /** Every request is the same: built once instead of per request. */
  constant: boolean;
  /** Requests n..n+run-1 go over one connection in order. */
  run: number;
}

export interface LoadResult {
  /** Answers received within the run. */
  requests: number;
  /** Requests sent, including those still unanswered when the run ended. */
  sent: number;
  seconds: number;
  rps: number;
  /** Latency percentiles in milliseconds. */
  p50: number;
  p99: number;
  non2xx: number;
  /** Socket errors and timeouts. */
  socketErrors: number;
}

/**
 * Keeps `connections` connections busy for `seconds` (one request in flight on each, no pipelining:
 * the way browsers and API clients talk) and returns what autocannon measured; with `rate`, sends
 * no more than that many requests a second over them.
 */
export async function runLoad(
  baseUrl: string,
  source: LoadSource,
  connections: number,
  seconds: number,
  rate?: number,
): Promise<LoadResult> {
  let next = 0;
  // A request without setupRequest is built once; a top-level `path` would be overridden by the URL's.
  const requests: RequestSpec[] = source.constant
    ? [source.request(0)]
    : // Each connection takes a block of `run` request numbers and sends them in order.
      Array.from({ length: source.run }, (_, k) => ({
        setupRequest: (request, context) => {
          if (k === 0) {
            context.base = next;
            next += source.run;
          }
          return { ...request, ...source.request((context.base as number) + k) };
        },
      }));
  const result = await autocannon({
    url: baseUrl,
    connections,
    duration: seconds,
    pipelining: 1,
    timeout: 10,
    ...(rate ? { overallRate: rate } : {}),
    requests,
  });
  const completed = result.requests.total;
  return {
    requests: completed,
    sent: result.requests.sent,
    seconds: result.duration,
    rps: completed / result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    socketErrors: result.errors,
  };
}
