import type { GraphQLError } from 'graphql';
import { badUserInput } from './errors.js';

// Values PostgreSQL would refuse, checked before any SQL so that the caller learns which field is
// wrong instead of meeting a database error. Types and per-field bounds are checked elsewhere
// (GraphQL's Int is already int4); these are the limits every value shares.

/** The longest string accepted anywhere: the longest text a column holds (descriptions, TEXT attribute values). */
export const MAX_STRING_LENGTH = 10_000;

/** The deepest nesting of a value (a JSON document's) that is accepted. */
export const MAX_NESTING = 64;

/**
 * Times are sent to PostgreSQL as ISO 8601 text, which it reads only with a four-digit year: year 0
 * and years past 9999 are refused or stored beyond what reads can print back.
 */
const EARLIEST_TIME = Date.parse('0001-01-01T00:00:00.000Z');
const LATEST_TIME = Date.parse('9999-12-31T23:59:59.999Z');

function problemOf(value: unknown): string | undefined {
  if (typeof value === 'string') {
    if (value.includes('\u0000')) return 'must not contain the NUL character (U+0000)';
    if (value.length > MAX_STRING_LENGTH) return `is longer than ${MAX_STRING_LENGTH} characters`;
  } else if (typeof value === 'number') {
    if (!Number.isFinite(value)) return 'must be a finite number';
    // Prisma writes a number from 2^63 on with 16 significant digits: one that needs 17 would be
    // stored rounded (the largest doubles out of range), so it is refused rather than changed.
    if (Math.abs(value) >= 2 ** 63 && Number(value.toPrecision(16)) !== value)
      return 'needs 17 significant digits, and numbers from 2^63 on are stored with at most 16';
  } else if (value instanceof Date) {
    if (value.getTime() < EARLIEST_TIME || value.getTime() > LATEST_TIME)
      return 'must be between 0001-01-01 and 9999-12-31';
  }
  return undefined;
}

/** A value still to check, and how it was reached (its path is spelled out only for a problem). */
interface Pending {
  value: unknown;
  depth: number;
  parent?: Pending;
  key: string | number;
}

const pathOf = (entry: Pending): string => {
  if (!entry.parent) return String(entry.key);
  return typeof entry.key === 'number'
    ? `${pathOf(entry.parent)}[${entry.key}]`
    : `${pathOf(entry.parent)}.${entry.key}`;
};

// A file part is checked by its own rules (files-upload.ts); its class may come from a fetch ponyfill.
const isFile = (value: object) => typeof (value as Blob).arrayBuffer === 'function';

/** The first value PostgreSQL would refuse in `value` (lists and objects walked, without recursion), with its path (`input.objects[3].name`). */
export function storableProblem(value: unknown, path: string): { path: string; message: string } | undefined {
  const pending: Pending[] = [{ value, depth: 0, key: path }];
  while (pending.length) {
    const entry = pending.pop()!;
    const message = problemOf(entry.value);
    if (message) return { path: pathOf(entry), message };
    const inner = entry.value;
    if (typeof inner !== 'object' || inner === null || inner instanceof Date || isFile(inner)) continue;
    if (entry.depth === MAX_NESTING)
      return { path: pathOf(entry), message: `is nested deeper than ${MAX_NESTING} levels` };
    const children: [string | number, unknown][] = Array.isArray(inner)
      ? inner.map((item, index) => [index, item])
      : Object.entries(inner);
    // Reversed onto the stack, so the first problem in the value's own order is the one reported.
    for (let i = children.length - 1; i >= 0; i--)
      pending.push({ value: children[i][1], depth: entry.depth + 1, parent: entry, key: children[i][0] });
  }
  return undefined;
}

/** BAD_USER_INPUT naming the first value PostgreSQL would refuse (the message without the `input.` every mutation's path starts with). */
export function unstorableInput(value: unknown, path: string): GraphQLError | undefined {
  const problem = storableProblem(value, path);
  return problem && badUserInput(`${problem.path.replace(/^input\./, '')} ${problem.message}`, problem.path);
}

export function assertStorable(value: unknown, path: string): void {
  const error = unstorableInput(value, path);
  if (error) throw error;
}
