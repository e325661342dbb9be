import type { ModelName } from '../auth/tenancy.js';
import type { ModelTable } from './catalog.js';
import { columnOf, quote, type Parameters } from './sql.js';
import { Slot } from './template.js';

/** Thrown when a read cannot become one statement; the operation then runs through the executor. */
export class Unplannable extends Error {}

/** Conditions joined with AND, leaving out those that always hold. */
export function allOf(parts: string[]): string {
  const kept = parts.filter((part) => part !== 'TRUE');
  return kept.length ? kept.join(' AND ') : 'TRUE';
}

export interface WhereScope {
  catalog: Map<ModelName, ModelTable>;
  params: Parameters;
  /** A fresh table alias. */
  alias(): string;
}

const casts: Record<string, string> = { Int: 'int', Float: 'float8', String: 'text', Boolean: 'boolean' };

/** A parameter compared with a column of Prisma type `type`; enums compare as text, timestamps as UTC. */
function operand(
  scope: WhereScope,
  type: string,
  kind: string,
  value: unknown,
  list: boolean,
): { column: (c: string) => string; value: string } {
  const suffix = list ? '[]' : '';
  if (kind === 'enum') return { column: (c) => `${c}::text`, value: scope.params.add(value, `text${suffix}`) };
  if (type === 'DateTime') {
    const iso = (date: unknown) => (date instanceof Date ? date.toISOString() : date);
    const text = scope.params.add(list ? (value as unknown[]).map(iso) : iso(value), `timestamptz${suffix}`);
    return {
      column: (c) => c,
      value: list ? `ARRAY(SELECT unnest(${text}) AT TIME ZONE 'UTC')` : `(${text} AT TIME ZONE 'UTC')`,
    };
  }
  if (!casts[type]) throw new Unplannable(`no cast for ${type}`);
  return { column: (c) => c, value: scope.params.add(value, casts[type] + suffix) };
}

const comparisons: Record<string, string> = { equals: '=', gt: '>', gte: '>=', lt: '<', lte: '<=' };

function scalarCondition(
  scope: WhereScope,
  table: ModelTable,
  alias: string,
  field: string,
  condition: unknown,
): string {
  const column = table.columns.get(field);
  if (!column) throw new Unplannable(`no column ${field}`);
  const target = columnOf(alias, column.name);
  const isFilter =
    condition !== null && typeof condition === 'object' && !(condition instanceof Date) && !(condition instanceof Slot);
  const entries = isFilter ? Object.entries(condition as Record<string, unknown>) : [['equals', condition] as const];
  const parts: string[] = [];
  for (const [operator, value] of entries) {
    if (value === undefined) continue;
    if ((operator === 'equals' || operator === 'not') && value === null) {
      parts.push(`${target} IS ${operator === 'not' ? 'NOT ' : ''}NULL`);
    } else if (operator === 'in') {
      const { column: cast, value: array } = operand(scope, column.type, column.kind, value, true);
      parts.push(`${cast(target)} = ANY(${array})`);
    } else if (comparisons[operator]) {
      const { column: cast, value: single } = operand(scope, column.type, column.kind, value, false);
      parts.push(`${cast(target)} ${comparisons[operator]} ${single}`);
    } else {
      // `not`, `contains`, `startsWith` carry Prisma's own null and pattern rules: left to Prisma.
      throw new Unplannable(`operator ${operator}`);
    }
  }
  return allOf(parts);
}

/**
 * Prisma's `where` as SQL over `alias`, for the forms the resolvers build: AND/OR, scalar comparisons,
 * to-one relation filters and `some` over a to-many relation (tenancy), each as Prisma would answer them.
 */
export function whereSql(
  scope: WhereScope,
  model: ModelName,
  alias: string,
  where: Record<string, unknown> | undefined,
): string {
  if (!where) return 'TRUE';
  const table = scope.catalog.get(model)!;
  const parts: string[] = [];
  for (const [key, value] of Object.entries(where)) {
    if (value === undefined) continue;
    if (key === 'AND' || key === 'OR') {
      const list = (Array.isArray(value) ? value : [value]).map((inner) =>
        whereSql(scope, model, alias, inner as Record<string, unknown>),
      );
      if (key === 'AND') parts.push(allOf(list));
      else parts.push(list.length ? `(${list.join(' OR ')})` : 'FALSE');
      continue;
    }
    const join = table.joins.get(key);
    if (!join) {
      parts.push(scalarCondition(scope, table, alias, key, value));
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
    parts.push(
      `EXISTS (SELECT 1 FROM ${quote(target.table)} ${child} WHERE ${allOf([`${columnOf(child, join.childColumn)} = ${columnOf(alias, join.parentColumn)}`, whereSql(scope, join.target, child, inner as Record<string, unknown>)])})`,
    );
  }
  return allOf(parts);
}

/** Prisma's `orderBy` (an object or a list of them) as SQL over `alias`. */
export function orderSql(table: ModelTable, alias: string, orderBy: unknown): string {
  const list = (Array.isArray(orderBy) ? orderBy : orderBy ? [orderBy] : []) as Record<string, unknown>[];
  const keys = list.flatMap((entry) => Object.entries(entry));
  if (!keys.length) throw new Unplannable('no order');
  return keys
    .map(([field, direction]) => {
      const column = table.columns.get(field);
      if (!column || (direction !== 'asc' && direction !== 'desc')) throw new Unplannable(`order by ${field}`);
      return `${columnOf(alias, column.name)} ${direction.toUpperCase()}`;
    })
    .join(', ');
}
