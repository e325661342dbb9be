// autocannon ships no types and @types/autocannon is not a dependency: the part of its API the bench uses.
declare module 'autocannon' {
  export interface RequestData {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string | Buffer;
  }

  export interface RequestSpec extends RequestData {
    /** Returns the request to send next; `context` lives per connection until the sequence restarts. */
    setupRequest?: (request: RequestData, context: Record<string, unknown>) => RequestData;
  }

  export interface Options extends RequestData {
    url: string;
    connections?: number;
    duration?: number;
    pipelining?: number;
    timeout?: number;
    /** Requests per second over all connections; 0 or unset: as many as they answer. */
    overallRate?: number;
    requests?: RequestSpec[];
  }

  export interface Histogram {
    average: number;
    min: number;
    max: number;
    p50: number;
    p90: number;
    p99: number;
    total: number;
  }

  export interface Result {
    requests: Histogram & { sent: number };
    latency: Histogram;
    duration: number;
    errors: number;
    timeouts: number;
    non2xx: number;
    statusCodeStats: Record<string, { count: number }>;
  }

  export interface Instance extends PromiseLike<Result> {
    stop(): void;
  }

  export default function autocannon(options: Options): Instance & Promise<Result>;
}
