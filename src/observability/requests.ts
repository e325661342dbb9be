import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Span } from '@opentelemetry/api';
import { getOperationAST, type ExecutionArgs } from 'graphql';
import type { Plugin } from 'graphql-yoga';

/** Who is calling, as the request log names them (src/auth/ resolves it from the API key or bearer token). */
export interface Caller {
  userId: number;
  /** `API_KEY` or `BEARER_TOKEN`. */
  credential: string;
  /** The first characters of a key's secret, never the secret; tokens have none. */
  keyPrefix?: string;
  organizationIds: readonly number[];
}

/** What one HTTP request did, filled in as it goes and reported (log line, metrics, span) when its response closes. */
export class RequestRecord {
  readonly start = performance.now();
  /** The route that answered, a bounded label (REST: the route's path pattern). */
  route: string | undefined = undefined;
  operationName: string | undefined = undefined;
  operationType: string | undefined = undefined;
  caller: Caller | undefined = undefined;
  /** SQL statements sent for this request (Prisma's and the read plans'). */
  statements = 0;
  /** When the GraphQL phase under way started (phases of one request never overlap). */
  phaseStart = 0;
  /** The last error logged, so an error reported twice is logged once. */
  lastError: unknown = undefined;
  /** Its response has closed: work that still runs in its context (a timer it started) is no longer its. */
  closed = false;
  span: Span | undefined = undefined;

  constructor(
    readonly id: string,
    readonly method: string,
    readonly path: string,
  ) {}
}

const storage = new AsyncLocalStorage<RequestRecord>();

/** The record of the HTTP request this code runs for; undefined outside one (start-up, WebSocket messages). */
export const currentRequest = (): RequestRecord | undefined => storage.getStore();

/** Runs `work` outside any request: what it starts (a timer, a connection that stays) belongs to no request's deadline or counts. */
export const outsideRequests = <T>(work: () => T): T => storage.exit(work);

/** Told of every SQL statement (Database.onQuery). */
export function countStatement(): void {
  const request = storage.getStore();
  if (request) request.statements++;
}

/** Records who is calling. */
export function noteCaller(caller: Caller): void {
  const request = storage.getStore();
  if (request) request.caller = caller;
}

/** A caller's id is kept when it is short and plain, so it cannot forge log content. */
const ACCEPTED_ID = /^[\w.:-]{1,128}$/;

function requestId(request: IncomingMessage): string {
  const given = request.headers['x-request-id'];
  return typeof given === 'string' && ACCEPTED_ID.test(given) ? given : randomUUID();
}

const RECORD = Symbol('request record');
type Observed = ServerResponse & { [RECORD]: RequestRecord };

/** Opens a record for each request and runs the listener in its context; `closed` reports it when the response closes. */
export function observeRequests(
  listener: RequestListener,
  closed: (record: RequestRecord, status: number) => void,
): RequestListener {
  // A module-level listener with `this` as the response: no closure per request.
  function onClose(this: Observed) {
    this[RECORD].closed = true;
    // 499 (nginx's convention): the client went away before the answer was complete.
    closed(this[RECORD], this.writableFinished ? this.statusCode : 499);
  }
  return (request, response) => {
    const url = request.url ?? '/';
    const query = url.indexOf('?');
    const record = new RequestRecord(
      requestId(request),
      request.method ?? 'GET',
      query < 0 ? url : url.slice(0, query),
    );
    response.setHeader('x-request-id', record.id);
    (response as Observed)[RECORD] = record;
    response.once('close', onClose);
    storage.run(record, listener, request, response);
  };
}

function noteOperation({ args }: { args: ExecutionArgs }): void {
  const request = storage.getStore();
  if (!request) return;
  const operation = getOperationAST(args.document, args.operationName);
  request.operationName = operation?.name?.value;
  request.operationType = operation?.operation;
}

/** Notes the operation a request runs (for REST, the route's operation). */
export const useOperationRecord = (): Plugin => ({ onExecute: noteOperation, onSubscribe: noteOperation });
