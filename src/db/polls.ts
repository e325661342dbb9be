import type { DatabaseBounds } from '../config.js';
import { GatewayPool } from './pool.js';
import { DatabaseUnavailableError } from './unavailable.js';

/** A server that takes longer than this to take a poll's connection or to answer it counts as not answering. */
export const ANSWER_MS = 1_000;

const pollBounds: DatabaseBounds = { connectTimeoutMs: ANSWER_MS, statementTimeoutMs: ANSWER_MS, lockTimeoutMs: 0 };

/** A pool of one connection for polls, apart from the requests' pool, so that busy requests never hold up a poll. */
export const pollPool = (url: string) =>
  new GatewayPool({ url, max: 1, bounds: pollBounds, sessionTimeouts: 'none', primary: false });

/** The work's result, or an error once a poll's answer time has passed. */
export function withinAnswerTime<T>(work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DatabaseUnavailableError(`no answer within ${ANSWER_MS} ms`)), ANSWER_MS);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}
