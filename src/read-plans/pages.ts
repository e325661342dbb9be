import { cursorRowId, defaultPageSize, maxPageSize } from '../schema/pagination.js';
import { allOf, columnOf, sql, type SQL } from './sql.js';
import { Slot } from './template.js';
import { Unplannable, type OrderKey } from './where.js';

/** A connection's arguments, as GraphQL gives them (a cursor may be a slot of a variable). */
export interface PageArgs {
  first?: number | null;
  last?: number | null;
  after?: unknown;
  before?: unknown;
}

/**
 * The window of a page, as Pothos's prisma connections read the arguments
 * (prismaCursorConnectionQuery and wrapConnectionResult): `size` rows from the start, or from the
 * end when `last` or `before` is given, past the cursor row when there is one. Arguments they
 * refuse (BAD_USER_INPUT and its kin) are left to them, to report.
 */
export interface Window {
  size: number;
  backward: boolean;
  /** The cursor's row id: a number, or the slot of a variable converted to one. */
  cursor?: unknown;
  after: boolean;
  before: boolean;
  last: boolean;
}

export function windowOf({ first, last, after, before }: PageArgs): Window {
  for (const size of [first, last]) {
    if (size != null && (size < 0 || size > maxPageSize))
      throw new Unplannable(`bad input, for the resolvers to report: page size ${size}`);
  }
  if ((after != null && before != null) || (before != null && first != null) || (after != null && last != null))
    throw new Unplannable(
      'bad input, for the resolvers to report: cursor and page arguments together (after with before or last, before with first)',
    );
  const given = after ?? before;
  let cursor: unknown;
  if (given != null) {
    const id = cursorRowId(given instanceof Slot ? given.sample : given);
    if (id === undefined) throw new Unplannable('bad input, for the resolvers to report: a cursor that is not valid');
    cursor = given instanceof Slot ? given.as(cursorRowId) : id;
  }
  return {
    size: first ?? last ?? defaultPageSize,
    backward: before != null || last != null,
    cursor,
    after: after != null,
    before: before != null,
    last: last != null,
  };
}

/**
 * Prisma's cursor condition over `alias`: the rows at or past the cursor row (under `cursor`) in
 * the page's direction, compared key by key as Prisma compares them, so NULLs drop rows alike.
 */
export function pastCursor(alias: SQL, cursor: SQL, keys: OrderKey[], backward: boolean): SQL {
  if (keys.some((key) => !key.isRequired)) throw new Unplannable('a cursor page ordered by a nullable column');
  const beyond = keys.map((key, i) => {
    const last = i === keys.length - 1;
    // Past the cursor row in the page's direction; the last key also takes the cursor row's own value.
    const ahead = key.descending !== backward ? (last ? sql`<=` : sql`<`) : last ? sql`>=` : sql`>`;
    const equal = keys
      .slice(0, i)
      .map((before) => sql`${columnOf(alias, before.column)} = ${columnOf(cursor, before.column)}`);
    return allOf([...equal, sql`${columnOf(alias, key.column)} ${ahead} ${columnOf(cursor, key.column)}`]);
  });
  return sql`(${sql.join(
    beyond.map((part) => sql`(${part})`),
    ' OR ',
  )})`;
}
