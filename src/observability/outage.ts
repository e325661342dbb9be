import { logger } from './logger.js';
import { outsideRequests } from './requests.js';

// A database that is away fails every request the same way: the log says so once when it starts
// and once when it ends, with what it cost, not a stack per request. A failure is an outage only
// once a statement on a connection of its own fails too: a pool that is merely busy (every
// connection taken) answers 503 as well, but the database is there.

/** How often an outage checks whether the database answers again. */
const PROBE_MS = 500;

interface Outage {
  /** The first failure's reason. */
  reason: string;
  since: number;
  /** Logged: a probe failed too. */
  declared: boolean;
  /** Requests answered 503 since the first failure. */
  answered: number;
}

let outage: Outage | undefined;
let probe: (() => Promise<unknown>) | undefined;
let timer: NodeJS.Timeout | undefined;

/** How an outage is confirmed and found over (a statement on a connection of its own); unset: never logged. */
export function watchOutages(check: (() => Promise<unknown>) | undefined): void {
  probe = check;
  if (!check) {
    clearTimeout(timer);
    outage = undefined;
  }
}

/** The error's last line: Prisma's messages start with the call and end with the cause. */
const reasonOf = (error: unknown) =>
  (error instanceof Error ? error.message : String(error)).split('\n').filter(Boolean).pop() ?? '';

function check(current: Outage): void {
  if (outage !== current || !probe) return;
  probe().then(
    () => {
      if (outage !== current) return;
      outage = undefined;
      // At the start's level but one, so that a log that shows the start shows its end.
      if (current.declared)
        logger.warn(
          { downMs: Date.now() - current.since, answered503: current.answered },
          'the database answers again',
        );
    },
    () => {
      if (outage !== current) return;
      if (!current.declared) {
        current.declared = true;
        logger.error(
          { reason: current.reason },
          'the database cannot be reached: requests that need it are answered 503',
        );
      }
      timer = setTimeout(() => check(current), PROBE_MS).unref();
    },
  );
}

/** A request found the database unreachable: an outage once a probe confirms it, followed until it ends. */
export function reportUnavailable(error: unknown): void {
  if (outage) return;
  const current: Outage = { reason: reasonOf(error), since: Date.now(), declared: false, answered: 0 };
  outage = current;
  // The probe belongs to no request: none of their deadlines or counts.
  outsideRequests(() => check(current));
}

/** A request was answered 503: counted into the outage under way. */
export function countUnavailableAnswer(): void {
  if (outage) outage.answered++;
}
