import type { ModelName } from '../auth/tenancy.js';
import type { ModelTable } from '../schema/model-catalog.js';
import { allOf, columnOf, parameter, sql, tableOf, type SQL } from './sql.js';
import { Slot } from './template.js';

/** Thrown when a read cannot become one statement; the operation then runs through the executor. */
export class Unplannable extends Error {}

export interface WhereScope {
  catalog: Map<ModelName, ModelTable>;
  /** A fresh table alias. */
  alias(): SQL;
}

const casts: Record<string, string> = { Int: 'int', Float: 'float8', String: 'text', Boolean: 'boolean' };

/** A parameter compared with a column of Prisma type `type`; enums compare as text, timestamps as UTC. */
function operand(type: string, kind: string, value: unknown, list: boolean): { column: (c: SQL) => SQL; value: SQL } {
  const suffix = list ? '[]' : '';
  if (kind === 'enum') return { column: (c) => sql`${c}::text`, value: parameter(value, `text${suffix}`) };
  if (type === 'DateTime') {
    const iso = (date: unknown) => (date instanceof Date ? date.toISOString() : date);
    const text = parameter(list ? (value as unknown[]).map(iso) : iso(value), `timestamptz${suffix}`);
    return {
      column: (c) => c,
      value: list ? sql`ARRAY(SELECT unnest(${text}) AT TIME ZONE 'UTC')` : sql`(${text} AT TIME ZONE 'UTC')`,
    };
  }
  if (!casts[type]) throw new Unplannable(`no cast for ${type}`);
  return { column: (c) => c, value: parameter(value, casts[type] + suffix) };
}

// `not` of a value is Prisma's `<>`: a NULL column matches neither it nor `equals`.
const comparisons: Record<string, SQL> = {
  equals: sql`=`,
  not: sql`<>`,
  gt: sql`>`,
  gte: sql`>=`,
  lt: sql`<`,
  lte: sql`<=`,
};

const isObject = (value: unknown) =>
  value !== null && typeof value === 'object' && !(value instanceof Date) && !(value instanceof Slot);

function scalarCondition(table: ModelTable, alias: SQL, field: string, condition: unknown): SQL {
  const column = table.columns.get(field);
  if (!column) throw new Unplannable(`no column ${field}`);
  const target = columnOf(alias, column.name);
  const entries = isObject(condition)
    ? Object.entries(condition as Record<string, unknown>)
    : [['equals', condition] as const];
  const parts: SQL[] = [];
  for (const [operator, value] of entries) {
    if (value === undefined) continue;
    if ((operator === 'equals' || operator === 'not') && value === null) {
      parts.push(operator === 'not' ? sql`${target} IS NOT NULL` : sql`${target} IS NULL`);
    } else if (operator === 'in') {
      const { column: cast, value: array } = operand(column.type, column.kind, value, true);
      parts.push(sql`${cast(target)} = ANY(${array})`);
    } else if (comparisons[operator] && (operator !== 'not' || !isObject(value))) {
      const { column: cast, value: single } = operand(column.type, column.kind, value, false);
      parts.push(sql`${cast(target)} ${comparisons[operator]} ${single}`);
    } else if ((operator === 'contains' || operator === 'startsWith') && typeof value === 'string') {
      // The filter's case-insensitive match of a pattern it escaped (containsText), as Prisma sends it.
      if ((condition as { mode?: string }).mode !== 'insensitive' || column.type !== 'String')
        throw new Unplannable(`operator ${operator}`);
      const pattern = parameter(value, 'text');
      parts.push(
        operator === 'contains'
          ? sql`${target} ILIKE ('%' || ${pattern} || '%')`
          : sql`${target} ILIKE (${pattern} || '%')`,
      );
    } else if (operator !== 'mode') {
      throw new Unplannable(`operator ${operator}`);
    }
  }
  return allOf(parts);
}

/**
 * Prisma's `where` as SQL over `alias`, for the forms the resolvers build: AND/OR/NOT, scalar comparisons
 * (`not` and the filter's case-insensitive `contains`/`startsWith` too),
 * to-one relation filters and `some` over a to-many relation (tenancy), each as Prisma would answer them.
 * `oneRow`: the condition is checked on one row at most (read by its key, or reached by a to-one relation).
 */
export function whereSql(
  scope: WhereScope,
  model: ModelName,
  alias: SQL,
  where: Record<string, unknown> | undefined,
  { oneRow = false }: { oneRow?: boolean } = {},
): SQL {
  if (!where) return sql.true;
  const table = scope.catalog.get(model)!;
  const parts: SQL[] = [];
  for (const [key, value] of Object.entries(where)) {
    if (value === undefined) continue;
    if (key === 'NOT') {
      // Prisma's NOT of the conditions together; an empty or listed one is left to it.
      if (!isObject(value) || Array.isArray(value) || !Object.keys(value as object).length)
        throw new Unplannable('a NOT of no or several conditions');
      parts.push(sql`(NOT (${whereSql(scope, model, alias, value as Record<string, unknown>, { oneRow })}))`);
      continue;
    }
    if (key === 'AND' || key === 'OR') {
      const list = (Array.isArray(value) ? value : [value]).map((inner) =>
        whereSql(scope, model, alias, inner as Record<string, unknown>, { oneRow }),
      );
      if (key === 'AND') parts.push(allOf(list));
      else parts.push(list.length ? sql`(${sql.join(list, ' OR ')})` : sql.false);
      continue;
    }
    const join = table.joins.get(key);
    if (!join) {
      parts.push(scalarCondition(table, alias, key, value));
      continue;
    }
    const filter = value as Record<string, unknown>;
    // A to-many relation is filtered with `some`; a to-one with its fields, or `is`.
    const operator = join.toMany ? 'some' : 'is';
    const inner = operator in filter ? filter[operator] : join.toMany ? undefined : filter;
    if (!inner || (operator in filter && Object.keys(filter).length > 1))
      throw new Unplannable(`relation filter on ${key}`);
    const child = scope.alias();
    const target = scope.catalog.get(join.target)!;
    // On one row, OFFSET 0 keeps a to-one check a subplan, whose generic plan tests its row's key first:
    // pulled up into a semi-join, PostgreSQL scans a small table (the libraries) testing every row's
    // organization first.
    // A list keeps the semi-join, which it may hash (probes per row made a slide list 50 times dearer).
    const probe = oneRow && !join.toMany;
    const conditions = allOf([
      sql`${columnOf(child, join.childColumn)} = ${columnOf(alias, join.parentColumn)}`,
      whereSql(scope, join.target, child, inner as Record<string, unknown>, { oneRow: probe }),
    ]);
    parts.push(
      sql`EXISTS (SELECT 1 FROM ${tableOf(target.table)} ${child} WHERE ${conditions}${probe ? sql` OFFSET 0` : sql``})`,
    );
  }
  return allOf(parts);
}

/** One key of an order: the column and its direction. */
export interface OrderKey {
  column: string;
  isRequired: boolean;
  descending: boolean;
}

/** Prisma's `orderBy` (an object or a list of them) as the keys of an order. */
export function orderKeys(table: ModelTable, orderBy: unknown): OrderKey[] {
  const list = (Array.isArray(orderBy) ? orderBy : orderBy ? [orderBy] : []) as Record<string, unknown>[];
  const keys = list.flatMap((entry) => Object.entries(entry));
  if (!keys.length) throw new Unplannable('no order');
  return keys.map(([field, direction]) => {
    const column = table.columns.get(field);
    if (!column || (direction !== 'asc' && direction !== 'desc')) throw new Unplannable(`order by ${field}`);
    return { column: column.name, isRequired: column.isRequired, descending: direction === 'desc' };
  });
}

/** An order as SQL over `alias`; `reversed` turns every key around (a backward page). */
export const orderSql = (alias: SQL, keys: OrderKey[], reversed = false) =>
  sql.join(
    keys.map((key) => sql`${columnOf(alias, key.column)} ${key.descending !== reversed ? sql`DESC` : sql`ASC`}`),
    ', ',
  );
