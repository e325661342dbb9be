// When a failed delivery is tried again: exponential backoff with jitter, for 24 hours from its first
// attempt, then a dead letter. docs/webhooks.md prints the schedule.

/** How long a delivery is retried, from its creation or its redelivery. */
export const RETRY_WINDOW_MS = 24 * 60 * 60_000;
/** The wait after the first failed attempt; each further failure doubles it. */
export const FIRST_RETRY_MS = 10_000;
/** The longest wait between two attempts. */
export const MAX_RETRY_MS = 2 * 60 * 60_000;
/** The longest `Retry-After` honoured: a receiver cannot park a delivery past this. */
export const MAX_RETRY_AFTER_MS = 60 * 60_000;

/** The wait before the next attempt, after `attempts` failed ones: the backoff's step, half of it fixed and half at random ("equal jitter"). */
export function retryDelayMs(attempts: number, random: () => number = Math.random): number {
  const step = Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** Math.max(0, attempts - 1));
  return Math.round(step / 2 + (random() * step) / 2);
}

/** The wait, the receiver's `Retry-After` (at most MAX_RETRY_AFTER_MS) when that is longer. */
export function nextDelayMs(attempts: number, retryAfterMs?: number, random?: () => number): number {
  const backoff = retryDelayMs(attempts, random);
  return retryAfterMs === undefined ? backoff : Math.max(backoff, Math.min(retryAfterMs, MAX_RETRY_AFTER_MS));
}
