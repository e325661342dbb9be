import { lookup, type LookupAddress } from 'node:dns';
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { addressProblem, urlProblem } from './address.js';

/** The whole attempt, from resolving the host to the last byte read. */
export const ATTEMPT_TIMEOUT_MS = 10_000;
/** The most of a receiver's answer read; the rest is cut off. */
export const MAX_ANSWER_BYTES = 64 * 1024;
/** The most of an answer or error kept with the delivery. */
export const EXCERPT_LENGTH = 200;

const USER_AGENT = 'whiteboard-gateway-webhooks/1';

/** What one attempt came to; never more of the receiver's answer than a status and an excerpt. */
export interface AttemptResult {
  /** The HTTP status; null when there was no answer. */
  status: number | null;
  /** The start of the answer, or what went wrong. */
  excerpt: string;
  /** A `Retry-After` the receiver sent, in milliseconds from now. */
  retryAfterMs?: number;
}

export interface ClientOptions {
  /** Private and loopback addresses, and http:// to a loopback host (WEBHOOK_ALLOW_PRIVATE). */
  allowPrivate: boolean;
  /** Certificates to trust instead of the system's (a receiver of one's own). @default the system's */
  ca?: string | Buffer;
  /** The bound of the whole attempt. @default ATTEMPT_TIMEOUT_MS */
  timeoutMs?: number;
  /** How a host name is resolved. @default dns.lookup, the system's resolver */
  resolve?: typeof lookup;
}

/** Printable text of at most EXCERPT_LENGTH characters: control characters (\p{Cc}) become spaces. */
const excerptOf = (text: string) =>
  text
    .replace(/\p{Cc}+/gu, ' ')
    .trim()
    .slice(0, EXCERPT_LENGTH);

/** `Retry-After` in seconds or as an HTTP date, in milliseconds from now; undefined when absent or unreadable. */
export function retryAfterMs(header: string | undefined, now = Date.now()): number | undefined {
  if (!header) return undefined;
  if (/^\d+$/.test(header.trim())) return Number(header.trim()) * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/**
 * Resolves once and checks every address before the socket connects to it: what was checked is what
 * is reached, so a name that resolves to a public address for a check and to a private one for the
 * connection (DNS rebinding) gets nowhere.
 */
function checkingLookup(allowPrivate: boolean, resolve: typeof lookup): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true }, (error, found: LookupAddress[]) => {
      if (error) return callback(error, '', 0);
      const refused = found.map((entry) => addressProblem(entry.address, allowPrivate)).find(Boolean);
      if (refused || found.length === 0)
        return callback(
          Object.assign(new Error(`${hostname} resolves to ${refused ?? 'no address'}`), { code: 'EADDRREFUSED' }),
          '',
          0,
        );
      // Node asks for every address when it tries them in turn (autoSelectFamily), else for one.
      if ((options as { all?: boolean }).all) return (callback as (e: null, a: LookupAddress[]) => void)(null, found);
      callback(null, found[0].address, found[0].family);
    });
  };
}

// Kept-alive connections are reused only for the host they were opened to, at the address checked then.
const agents = { http: new HttpAgent({ keepAlive: true }), https: new HttpsAgent({ keepAlive: true }) };

/**
 * POSTs a webhook: no redirect followed, ATTEMPT_TIMEOUT_MS for everything, at most MAX_ANSWER_BYTES
 * of the answer read. Never throws: a failure is an attempt without a status.
 */
export function postWebhook(
  url: string,
  headers: Record<string, string>,
  body: string,
  options: ClientOptions,
): Promise<AttemptResult> {
  const problem = urlProblem(url, options.allowPrivate);
  if (problem) return Promise.resolve({ status: null, excerpt: problem });
  const target = new URL(url);
  const secure = target.protocol === 'https:';
  return new Promise((settle) => {
    let settled = false;
    const finish = (result: AttemptResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      settle(result);
    };
    const request = (secure ? httpsRequest : httpRequest)(target, {
      method: 'POST',
      agent: secure ? agents.https : agents.http,
      lookup: checkingLookup(options.allowPrivate, options.resolve ?? lookup),
      ...(options.ca && { ca: options.ca }),
      headers: {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
        'user-agent': USER_AGENT,
        ...headers,
      },
    });
    const timeoutMs = options.timeoutMs ?? ATTEMPT_TIMEOUT_MS;
    const timer = setTimeout(() => {
      request.destroy();
      finish({ status: null, excerpt: `no answer within ${timeoutMs / 1000} s` });
    }, timeoutMs);
    request.on('error', (error: NodeJS.ErrnoException) =>
      finish({ status: null, excerpt: excerptOf(error.code ? `${error.code}: ${error.message}` : error.message) }),
    );
    request.on('response', (response: IncomingMessage) => {
      const chunks: Buffer[] = [];
      let read = 0;
      const answered = () =>
        finish({
          status: response.statusCode ?? null,
          excerpt: excerptOf(Buffer.concat(chunks).toString('utf8')),
          retryAfterMs: retryAfterMs(response.headers['retry-after']),
        });
      response.on('data', (chunk: Buffer) => {
        if (read < EXCERPT_LENGTH * 4) chunks.push(chunk);
        read += chunk.length;
        if (read > MAX_ANSWER_BYTES) {
          answered();
          request.destroy();
        }
      });
      response.on('end', answered);
      response.on('error', answered);
    });
    request.end(body);
  });
}
