import type { InputType } from '@pothos/core';
import type { ModelName } from '../auth/tenancy.js';
import type { OrderBy, Where } from '../db/delegate.js';
import { literalPattern } from '../db/patterns.js';
import { builder, type BuilderTypes } from './builder.js';

export const OrderDirection = builder.enumType('OrderDirection', { values: ['ASC', 'DESC'] as const });

type Comparison = Partial<
  Record<'eq' | 'ne' | 'in' | 'gt' | 'gte' | 'lt' | 'lte' | 'contains' | 'startsWith', unknown>
>;

/** Prisma's case-insensitive match of a literal text: what `contains` promises the caller. */
export const containsText = (text: string) => ({ contains: literalPattern(text), mode: 'insensitive' as const });

// One table turns every filter operator into Prisma's; string matching ignores case.
const prismaOperator: Record<keyof Comparison, (value: unknown) => Record<string, unknown>> = {
  eq: (value) => ({ equals: value }),
  ne: (value) => ({ not: value }),
  in: (value) => ({ in: value }),
  gt: (value) => ({ gt: value }),
  gte: (value) => ({ gte: value }),
  lt: (value) => ({ lt: value }),
  lte: (value) => ({ lte: value }),
  contains: (value) => containsText(value as string),
  startsWith: (value) => ({ startsWith: literalPattern(value as string), mode: 'insensitive' }),
};

function comparisonInput(
  name: string,
  description: string,
  type: InputType<BuilderTypes>,
  operators: (keyof Comparison)[],
) {
  return builder.inputType(name, {
    description,
    fields: (t) =>
      Object.fromEntries(
        operators.map((operator) => [operator, operator === 'in' ? t.field({ type: [type] }) : t.field({ type })]),
      ),
  });
}

const scalarFilters = {
  Int: comparisonInput('IntFilter', 'Compares an integer.', 'Int', ['eq', 'ne', 'in', 'gt', 'gte', 'lt', 'lte']),
  Float: comparisonInput('FloatFilter', 'Compares a number.', 'Float', ['eq', 'ne', 'gt', 'gte', 'lt', 'lte']),
  String: comparisonInput('StringFilter', 'Compares a string; `contains` and `startsWith` ignore case.', 'String', [
    'eq',
    'ne',
    'in',
    'contains',
    'startsWith',
  ]),
  Boolean: comparisonInput('BooleanFilter', 'Compares a boolean.', 'Boolean', ['eq']),
  DateTime: comparisonInput('DateTimeFilter', 'Compares a timestamp.', 'DateTime', ['eq', 'gt', 'gte', 'lt', 'lte']),
};

/** A filter over an enum column: equal to one value, or in a list. */
export function enumFilter(enumRef: InputType<BuilderTypes> & { name: string }) {
  return comparisonInput(`${enumRef.name}Filter`, `Compares a ${enumRef.name}.`, enumRef, ['eq', 'ne', 'in']);
}

/** How a column is filtered: a scalar's comparison, or an enum's filter from `enumFilter`. */
export type FilterKind = keyof typeof scalarFilters | ReturnType<typeof comparisonInput>;

export interface FilterValue {
  [field: string]: Comparison | FilterValue[] | FilterValue | null | undefined;
}

/** Defines `<Type>Filter` (fields combined with AND, plus `and`, `or`, `not`) and how it becomes a Prisma `where`. */
export function modelFilter(typeName: string, fields: Record<string, FilterKind>) {
  const ref = builder.inputRef<FilterValue>(`${typeName}Filter`);
  ref.implement({
    description: `Conditions on ${typeName} rows; all given conditions must hold.`,
    fields: (t) => ({
      ...Object.fromEntries(
        Object.entries(fields).map(([field, kind]) => [
          field,
          t.field({ type: typeof kind === 'string' ? scalarFilters[kind] : kind }),
        ]),
      ),
      and: t.field({ type: [ref] }),
      or: t.field({ type: [ref] }),
      not: t.field({ type: ref }),
    }),
  });
  return ref;
}

/**
 * Turns a `<Type>Filter` value into a Prisma `where` of its model. Each operator is a condition of
 * its own: Prisma's `mode: 'insensitive'` would otherwise turn a column's `eq` or `ne` beside a
 * `contains` into a case-insensitive pattern match too.
 */
export function filterToWhere(filter: FilterValue | null | undefined): Where<ModelName> {
  const conditions: Record<string, unknown>[] = [];
  for (const [field, value] of Object.entries(filter ?? {})) {
    if (value == null) continue;
    if (field === 'and' || field === 'or')
      conditions.push({ [field.toUpperCase()]: (value as FilterValue[]).map(filterToWhere) });
    else if (field === 'not') conditions.push({ NOT: filterToWhere(value as FilterValue) });
    else {
      for (const [operator, operand] of Object.entries(value as Comparison)) {
        if (operand != null) conditions.push({ [field]: prismaOperator[operator as keyof Comparison](operand) });
      }
    }
  }
  // The filter's fields are its model's columns (modelFilter), each with Prisma's operators.
  const where = conditions.length > 1 ? { AND: conditions } : (conditions[0] ?? {});
  return where as Where<ModelName>;
}

/** Defines `<Type>OrderField`, `<Type>OrderBy`; the row id breaks ties so pages are stable. */
export function modelOrder(typeName: string, fields: string[]) {
  const fieldEnum = builder.enumType(`${typeName}OrderField`, { values: fields });
  const ref = builder.inputType(`${typeName}OrderBy`, {
    fields: (t) => ({
      field: t.field({ type: fieldEnum, required: true }),
      direction: t.field({ type: OrderDirection, defaultValue: 'ASC', required: true }),
    }),
  });
  return ref;
}

export function orderToPrisma(orderBy: readonly { field: string; direction: 'ASC' | 'DESC' }[] | null | undefined) {
  const order = (orderBy ?? []).map(({ field, direction }) => ({ [field]: direction === 'ASC' ? 'asc' : 'desc' }));
  // The fields are its model's columns (modelOrder).
  return [...order, { id: 'asc' }] as OrderBy<ModelName>;
}
