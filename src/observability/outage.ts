import { logger } from './logger.js';

// A database that is away fails every request the same way: the log says so once when it starts
// and once when it ends, with what it cost, not a stack per request.

/** How often an outage checks whether the database answers again. */
const PROBE_MS = 500;

interface Outage {
  since: number;
  /** Requests answered 503 since it started. */
  answered: number;
}

let outage: Outage | undefined;
let probe: (() => Promise<unknown>) | undefined;
let timer: NodeJS.Timeout | undefined;

/** How an outage finds the database answering again (a statement on a connection of its own); unset: never. */
export function watchOutages(check: (() => Promise<unknown>) | undefined): void {
  probe = check;
  if (!check) clearTimeout(timer);
}

/** The error's last line: Prisma's messages start with the call and end with the cause. */
const reasonOf = (error: unknown) =>
  (error instanceof Error ? error.message : String(error)).split('\n').filter(Boolean).pop() ?? '';

/** A request found the database unreachable: logged when an outage starts, and followed until it ends. */
export function reportUnavailable(error: unknown): void {
  if (outage) return;
  outage = { since: Date.now(), answered: 0 };
  logger.error({ reason: reasonOf(error) }, 'the database cannot be reached: requests that need it are answered 503');
  const current = outage;
  const check = () => {
    if (outage !== current || !probe) return;
    probe().then(
      () => {
        if (outage !== current) return;
        outage = undefined;
        logger.info(
          { downMs: Date.now() - current.since, answered503: current.answered },
          'the database answers again',
        );
      },
      () => (timer = setTimeout(check, PROBE_MS).unref()),
    );
  };
  timer = setTimeout(check, PROBE_MS).unref();
}

/** A request was answered 503: counted into the outage under way. */
export function countUnavailableAnswer(): void {
  if (outage) outage.answered++;
}
