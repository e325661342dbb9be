import { parsePrismaCursor } from '@pothos/plugin-prisma';
import type { GraphQLResolveInfo } from 'graphql';
import type { PlannedQuery, Row } from '../db/delegate.js';
import type PrismaTypes from '../generated/pothos-types.js';
import { tenancyWhere, type ModelName } from '../auth/tenancy.js';
import { readPlan } from '../read-plans/extensions.js';
import { principalOf, type Context } from './context.js';
import { badUserInput } from './errors.js';

/** Largest page a connection returns. */
export const maxPageSize = 100;
/** Page size when neither `first` nor `last` is given. */
export const defaultPageSize = 20;
/** The largest row id (PostgreSQL int4). */
export const MAX_ROW_ID = 2_147_483_647;

/**
 * The row id a connection cursor names (Pothos's `GPC:` cursor of the `id` column), or undefined for
 * one that is not valid: a row id is PostgreSQL int4, which a larger number would overflow in the
 * cursor row's lookup. The read planner reads cursors with it too, to refuse exactly these.
 */
export function cursorRowId(cursor: unknown): number | undefined {
  if (typeof cursor !== 'string') return undefined;
  let id: unknown;
  try {
    id = parsePrismaCursor(cursor);
  } catch {
    return undefined;
  }
  return Number.isInteger(id) && Math.abs(id as number) <= MAX_ROW_ID ? (id as number) : undefined;
}

export interface PageArgs {
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
    if (cursor != null && cursorRowId(cursor) === undefined)
      throw badUserInput(`Argument "${name}" is not a valid cursor`, name);
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

/** A cursor naming no row: row ids start at 1. */
const noRow = { id: 0 };

/**
 * A cursor limited to the rows the caller may see. Prisma pages from the cursor row's sort values,
 * read from the database: a cursor naming a row of another organization would page by that row's
 * place, so it pages as a cursor naming no row does (an empty page), as row-level security has it.
 * A cursor costs one lookup through the request's row loader.
 */
async function cursorOf(model: ModelName, args: PageArgs, ctx: Context) {
  const id = parsePrismaCursor((args.after ?? args.before)!) as number;
  return (await ctx.loaders.row(model, { select: { id: true } }, id)) ? { id } : noRow;
}

/** A related list's query with its cursor limited (cursorOf): as it is without a cursor, a promise with one. */
function withCursor<Q extends object>(model: ModelName, query: Q, args: PageArgs, ctx: Context) {
  if (args.after == null && args.before == null) return query;
  return cursorOf(model, args, ctx).then((cursor) => ({ ...query, cursor }));
}

/** A root connection's Prisma query, its cursor limited as a related list's is (cursorOf). */
export async function withVisibleCursor<Q extends { cursor?: object }>(
  model: ModelName,
  query: Q,
  args: PageArgs,
  ctx: Context,
): Promise<Q> {
  return query.cursor ? { ...query, cursor: await cursorOf(model, args, ctx) } : query;
}

const orders = {
  /** Insertion order. */
  id: { id: 'asc' as const },
  /** The explicit `order` of slides, steps and attributes. */
  order: [{ order: 'asc' as const }, { id: 'asc' as const }],
};

/** The Prisma arguments of a page of `M`, as a related connection's `query` gives them. */
interface PageQuery<M extends ModelName> {
  where?: PrismaTypes[M]['Where'];
  orderBy: PrismaTypes[M]['OrderBy'] | PrismaTypes[M]['OrderBy'][];
  cursor?: PrismaTypes[M]['WhereUnique'];
}

/**
 * The page of one parent row, for a selection Pothos could not load with its parent's: two
 * selections of one relation with different arguments below one row. Pothos would load it with the
 * parent's findUnique, whose relations Prisma pages in SQL from the cursor row's place wherever that
 * row is; read through the row loader (findMany, one statement for the rows of a list), it pages as
 * every planned selection does, among the parent's rows.
 */
async function pageOfParent<M extends ModelName>(
  query: object,
  parent: { id: number },
  ctx: Context,
  info: GraphQLResolveInfo,
): Promise<Row<M>[]> {
  const parentModel = info.parentType.extensions.pothosPrismaModel as ModelName;
  const field = info.parentType.getFields()[info.fieldName];
  const relation = (field.extensions.pothosPrismaRelationField as { name: string }).name;
  const selection: PlannedQuery<ModelName> = { select: { [relation]: query } };
  const row: Record<string, unknown> | null = await ctx.loaders.row(parentModel, selection, parent.id);
  return (row?.[relation] as Row<M>[] | undefined) ?? [];
}

/**
 * The rows of a related list as Pothos's types have a related connection's `resolve` return them: a
 * list of the relation's shape, which is itself the list of rows (RelatedConnectionOptions), though
 * Pothos takes the rows at run time and `relatedConnection` types its nodes as rows. Should Pothos
 * declare the rows, `page`'s resolver stops compiling and this goes.
 */
type DeclaredRelatedRows<M extends ModelName> = readonly Row<M>[][];
const asDeclared = <M extends ModelName>(rows: Promise<unknown>) => rows as Promise<DeclaredRelatedRows<M>>;

/** A related list of `model` in an order of `orders`; `inTenancy` limits it to the caller's organizations. */
function page<M extends ModelName>(model: M, order: keyof typeof orders, inTenancy: boolean) {
  return {
    ...connectionOptions,
    resolve: (query: object, parent: { id: number }, _args: unknown, ctx: Context, info: GraphQLResolveInfo) =>
      asDeclared<M>(pageOfParent<M>(query, parent, ctx, info)),
    extensions: readPlan({ pageOfParent: true }),
    // The orders and conditions name columns every model of the graph has (`order` those it is used on).
    // Pothos awaits a query that is a promise (its relatedConnection's getQuery), though its types do not say so.
    query: (args: PageArgs, ctx: Context) =>
      withCursor(
        model,
        { ...(inTenancy ? { where: tenancyWhere(model, principalOf(ctx)) } : {}), orderBy: orders[order] },
        args,
        ctx,
      ) as PageQuery<M>,
  };
}

/** A related list in insertion order, of rows that stay in the parent's organization (relationTenancy). */
export const pageById = <M extends ModelName>(model: M) => page(model, 'id', false);

/** A related list in its explicit `order` (slides, steps, attributes). */
export const pageByOrder = <M extends ModelName>(model: M) => page(model, 'order', false);

/** A related list that can reach into other organizations (a user's boards), limited to the caller's. */
export const pageInTenancy = <M extends ModelName>(model: M) => page(model, 'id', true);
