import {
  getNamedType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isScalarType,
  type GraphQLInputType,
  type GraphQLNamedInputType,
} from 'graphql';
import { snakeCase } from './names.js';

/** One problem with a request value, as FastAPI (pydantic v2) reports it in a 422. */
export interface ValidationItem {
  type: string;
  loc: (string | number)[];
  msg: string;
  input: unknown;
  ctx?: Record<string, unknown>;
}

/** Query and path values arrive as text; body values as JSON (or text, in a multipart form). */
export type Source = 'text' | 'json';

const GRAPHQL_INT_MAX = 2 ** 31 - 1;
const GRAPHQL_INT_MIN = -(2 ** 31);
const TRUE = new Set(['1', 'on', 't', 'true', 'y', 'yes']);
const FALSE = new Set(['0', 'off', 'f', 'false', 'n', 'no']);

// pydantic's wording, so legacy callers that match on `type` or `msg` keep working.
const problem = {
  int_type: 'Input should be a valid integer',
  int_parsing: 'Input should be a valid integer, unable to parse string as an integer',
  int_from_float: 'Input should be a valid integer, got a number with a fractional part',
  float_type: 'Input should be a valid number',
  float_parsing: 'Input should be a valid number, unable to parse string as a number',
  finite_number: 'Input should be a finite number',
  bool_type: 'Input should be a valid boolean',
  bool_parsing: 'Input should be a valid boolean, unable to interpret input',
  string_type: 'Input should be a valid string',
  list_type: 'Input should be a valid list',
  datetime_parsing: 'Input should be a valid datetime, invalid ISO 8601 format',
  model_attributes_type: 'Input should be a valid dictionary or object to extract fields from',
  missing: 'Field required',
} as const;

export function item(type: keyof typeof problem, loc: (string | number)[], input: unknown): ValidationItem {
  return { type, loc, msg: problem[type], input };
}

export function bound(kind: 'ge' | 'le', limit: number, loc: (string | number)[], input: unknown): ValidationItem {
  const [type, words] =
    kind === 'ge' ? ['greater_than_equal', 'greater than or equal to'] : ['less_than_equal', 'less than or equal to'];
  return { type, loc, msg: `Input should be ${words} ${limit}`, input, ctx: { [kind]: limit } };
}

/** pydantic lists expected values as `'a', 'b' or 'c'`. */
export function expected(values: string[]): string {
  const quoted = values.map((value) => `'${value}'`);
  return quoted.length > 1 ? `${quoted.slice(0, -1).join(', ')} or ${quoted[quoted.length - 1]}` : (quoted[0] ?? '');
}

function integer(value: unknown, source: Source, loc: (string | number)[], errors: ValidationItem[]): unknown {
  let number: number;
  if (typeof value === 'string') {
    if (!/^\s*[-+]?\d+\s*$/.test(value)) return void errors.push(item('int_parsing', loc, value));
    number = Number(value);
  } else if (source === 'json' && typeof value === 'number') {
    if (!Number.isFinite(value)) return void errors.push(item('finite_number', loc, value));
    if (!Number.isInteger(value)) return void errors.push(item('int_from_float', loc, value));
    number = value;
  } else {
    return void errors.push(item('int_type', loc, value));
  }
  // GraphQL's Int is 32 bits: a larger id can match no row, and must not reach the resolvers as an error.
  if (number > GRAPHQL_INT_MAX) return void errors.push(bound('le', GRAPHQL_INT_MAX, loc, value));
  if (number < GRAPHQL_INT_MIN) return void errors.push(bound('ge', GRAPHQL_INT_MIN, loc, value));
  return number;
}

function scalar(
  type: GraphQLNamedInputType,
  value: unknown,
  source: Source,
  loc: (string | number)[],
  errors: ValidationItem[],
): unknown {
  switch (type.name) {
    case 'Int':
      return integer(value, source, loc, errors);
    case 'Float':
      // JSON.parse reads 1e999 as Infinity, which no column stores.
      if (typeof value === 'number')
        return Number.isFinite(value) ? value : void errors.push(item('finite_number', loc, value));
      if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) return Number(value);
      return void errors.push(item(typeof value === 'string' ? 'float_parsing' : 'float_type', loc, value));
    case 'Boolean':
      if (typeof value === 'boolean') return value;
      if (typeof value === 'number' && (value === 0 || value === 1)) return value === 1;
      if (typeof value === 'string' && TRUE.has(value.toLowerCase())) return true;
      if (typeof value === 'string' && FALSE.has(value.toLowerCase())) return false;
      return void errors.push(item(typeof value === 'string' ? 'bool_parsing' : 'bool_type', loc, value));
    case 'String':
    case 'ID':
      if (typeof value === 'string') return value;
      return void errors.push(item('string_type', loc, value));
  }
  if (isEnumType(type)) {
    const values = type.getValues().map((value) => value.name);
    if (typeof value === 'string' && values.includes(value)) return value;
    const list = expected(values);
    return void errors.push({
      type: 'enum',
      loc,
      msg: `Input should be ${list}`,
      input: value,
      ctx: { expected: list },
    });
  }
  // A custom scalar checks itself; the request keeps the value as sent (it travels as JSON).
  try {
    if (isScalarType(type)) type.parseValue(value);
    return value;
  } catch (error) {
    if (type.name === 'DateTime') return void errors.push(item('datetime_parsing', loc, value));
    return void errors.push({
      type: 'value_error',
      loc,
      msg: `Value error, ${(error as Error).message}`,
      input: value,
    });
  }
}

/**
 * Checks a request value against the GraphQL type of the variable it fills and returns the variable
 * value (input object keys turned from snake_case to GraphQL's camelCase); problems go to `errors`.
 * Lists arrive comma-separated in query text.
 */
export function coerce(
  type: GraphQLInputType,
  value: unknown,
  source: Source,
  loc: (string | number)[],
  errors: ValidationItem[],
): unknown {
  // A null where a value is required goes on, to be reported as a value of the wrong type, as pydantic does.
  if (value === null && !isNonNullType(type)) return null;
  const inner = isNonNullType(type) ? type.ofType : type;
  if (isListType(inner)) {
    const values = typeof value === 'string' && source === 'text' ? value.split(',') : value;
    if (!Array.isArray(values)) return void errors.push(item('list_type', loc, value));
    return values.map((entry, index) => coerce(inner.ofType, entry, source, [...loc, index], errors));
  }
  if (isInputObjectType(inner)) {
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      return void errors.push(item('model_attributes_type', loc, value));
    const given = value as Record<string, unknown>;
    const result: Record<string, unknown> = {};
    for (const field of Object.values(inner.getFields())) {
      const key = snakeCase(field.name);
      if (given[key] === undefined) {
        if (isNonNullType(field.type) && field.defaultValue === undefined)
          errors.push(item('missing', [...loc, key], value));
        continue;
      }
      result[field.name] = coerce(field.type, given[key], source, [...loc, key], errors);
    }
    return result;
  }
  return scalar(getNamedType(inner) as GraphQLNamedInputType, value, source, loc, errors);
}
