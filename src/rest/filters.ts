import { getNamedType, isEnumType, isInputObjectType, type GraphQLInputObjectType } from 'graphql';
import { expected, type ValidationItem } from './coerce.js';
import type { Param } from './param.js';
import { legacyTypeName } from './json-schema.js';
import { snakeCase } from './names.js';

// Filter, Info and ordering parameters are read off the root connection's `<Type>Filter` and
// `<Type>OrderBy` input types, so a column that becomes filterable in GraphQL is filterable here too.

/** The columns of a `<Type>Filter`: every field but the `and`/`or`/`not` that nest the filter itself. */
function columns(filterType: GraphQLInputObjectType) {
  return Object.values(filterType.getFields()).filter((field) => getNamedType(field.type) !== filterType);
}

/** One query parameter per column and operator: `name` (eq), `name__contains`, `id__in=1,2`. */
export function filterParams(filterType: GraphQLInputObjectType): Param[] {
  return columns(filterType).flatMap((column) => {
    const comparison = getNamedType(column.type);
    if (!isInputObjectType(comparison)) return [];
    return Object.values(comparison.getFields()).map((operator) => ({
      name: operator.name === 'eq' ? snakeCase(column.name) : `${snakeCase(column.name)}__${snakeCase(operator.name)}`,
      in: 'query' as const,
      target: ['filter', column.name, operator.name],
      type: operator.type,
      required: false,
      description: `${snakeCase(column.name)} ${operator.name}${operator.name === 'in' ? ' (comma-separated)' : ''}`,
    }));
  });
}

/**
 * Query parameters shaped like a filter (`<field>__<operator>`) that are none of the route's: refused
 * (422), where ignoring them would answer the whole list as if it were filtered.
 */
export function unknownFilters(params: Param[], query: Record<string, string>): ValidationItem[] {
  const filters = params
    .filter((param) => param.in === 'query' && param.target?.[0] === 'filter')
    .map((param) => param.name);
  if (!filters.length) return [];
  return Object.keys(query)
    .filter((name) => name.includes('__') && !filters.includes(name))
    .map((name) => {
      const field = name.slice(0, name.lastIndexOf('__'));
      const ofField = filters.filter((filter) => filter === field || filter.startsWith(`${field}__`)).sort();
      const known = ofField.length
        ? `${field} is filtered by ${expected(ofField)}`
        : `the filterable fields are ${expected(filters.filter((filter) => !filter.includes('__')))}`;
      return {
        type: 'value_error',
        loc: ['query', name],
        msg: `Value error, unknown filter '${name}'; ${known}`,
        input: query[name],
      };
    });
}

/** `ordering=-created_at,name`: the `<Type>OrderField` values by their legacy names, `-` for descending. */
export function orderingParam(orderByType: GraphQLInputObjectType): Param {
  const fieldEnum = getNamedType(orderByType.getFields().field.type);
  const values = isEnumType(fieldEnum) ? fieldEnum.getValues().map((value) => value.name) : [];
  return {
    name: 'ordering',
    in: 'query',
    target: ['orderBy'],
    type: null,
    required: false,
    ordering: new Map(values.map((value) => [snakeCase(value), value])),
    description: `Comma-separated sort keys among ${values.map(snakeCase).join(', ')}; a leading - sorts descending. The row id breaks ties.`,
  };
}

export interface FilterFieldInfo {
  name: string;
  type: string;
  choices?: { value: string; label: string }[];
}

/** The `fields` of an Info answer: each filterable column, its legacy type, and the choices of an enum. */
export function infoFields(filterType: GraphQLInputObjectType): FilterFieldInfo[] {
  return columns(filterType).map((column) => {
    const comparison = getNamedType(column.type);
    const eq = isInputObjectType(comparison) ? comparison.getFields().eq : undefined;
    const valueType = eq ? getNamedType(eq.type) : comparison;
    const info: FilterFieldInfo = { name: snakeCase(column.name), type: legacyTypeName(valueType) };
    if (isEnumType(valueType))
      info.choices = valueType
        .getValues()
        .map((value) => ({ value: value.name, label: value.description ?? value.name }));
    return info;
  });
}
