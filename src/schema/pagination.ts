import { parsePrismaCursor } from '@pothos/plugin-prisma';
import { tenancyWhere, type ModelName } from '../auth/tenancy.js';
import { principalOf, type Context } from './context.js';
import { badUserInput } from './errors.js';

/** Largest page a connection returns. */
export const maxPageSize = 100;
/** Page size when neither `first` nor `last` is given. */
export const defaultPageSize = 20;

interface PageArgs {
  first?: number | null;
  last?: number | null;
  after?: string | null;
  before?: string | null;
}

// Pothos would silently clamp an oversized page and answer an opaque error for a bad cursor;
// callers get a BAD_USER_INPUT naming the argument instead.
function checkedMaxSize(args: PageArgs): number {
  for (const name of ['first', 'last'] as const) {
    const size = args[name];
    if (size != null && (size < 0 || size > maxPageSize)) {
      throw badUserInput(`Argument "${name}" must be between 0 and ${maxPageSize}, got ${size}`, name);
    }
  }
  for (const name of ['after', 'before'] as const) {
    const cursor = args[name];
    if (cursor == null) continue;
    let value: unknown;
    try {
      value = parsePrismaCursor(cursor);
    } catch {
      value = undefined;
    }
    if (!Number.isInteger(value)) throw badUserInput(`Argument "${name}" is not a valid cursor`, name);
  }
  return maxPageSize;
}

/** Options every connection shares: cursor on the row id, checked page size, total count. */
export const connectionOptions = {
  cursor: 'id',
  totalCount: true,
  defaultSize: defaultPageSize,
  maxSize: checkedMaxSize,
} as const;

/** A related list in insertion order. */
export const pageById = { ...connectionOptions, query: { orderBy: { id: 'asc' as const } } };

/** A related list in its explicit `order` (slides, steps, attributes). */
export const pageByOrder = {
  ...connectionOptions,
  query: { orderBy: [{ order: 'asc' as const }, { id: 'asc' as const }] },
};

/** A related list that can reach into other organizations (a user's boards), limited to the caller's. */
export function pageInTenancy<M extends ModelName>(model: M) {
  return {
    ...connectionOptions,
    query: (_args: object, ctx: Context) => ({
      where: tenancyWhere(model, principalOf(ctx)),
      orderBy: { id: 'asc' as const },
    }),
  };
}
