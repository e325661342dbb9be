import {
  getNamedType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isObjectType,
  type FieldNode,
  type GraphQLInputType,
  type GraphQLOutputType,
  type SelectionSetNode,
} from 'graphql';
import { snakeCase } from './names.js';

/** A JSON Schema (2020-12, as OpenAPI 3.1 uses it). */
export type JsonSchema = Record<string, unknown>;

// How each GraphQL scalar travels in JSON; a custom scalar missing here is any JSON value.
const scalars: Record<string, JsonSchema> = {
  Int: { type: 'integer', format: 'int32' },
  Float: { type: 'number' },
  String: { type: 'string' },
  ID: { type: 'string' },
  Boolean: { type: 'boolean' },
  DateTime: { type: 'string', format: 'date-time' },
  Upload: { type: 'string', format: 'binary' },
};

/** The legacy document's name for a GraphQL type (`integer`, `number`, `string`, `boolean`, `date-time`). */
export function legacyTypeName(type: GraphQLInputType | GraphQLOutputType): string {
  const named = getNamedType(type);
  if (isEnumType(named)) return 'string';
  const schema = scalars[named.name] ?? {};
  return (schema.format === 'date-time' ? 'date-time' : schema.type as string | undefined) ?? 'object';
}

function nullable(schema: JsonSchema): JsonSchema {
  if (typeof schema.type === 'string') return { ...schema, type: [schema.type, 'null'], ...(schema.enum ? { enum: [...(schema.enum as unknown[]), null] } : {}) };
  return { anyOf: [schema, { type: 'null' }] };
}

function withDescription(schema: JsonSchema, description: string | null | undefined): JsonSchema {
  return description ? { ...schema, description } : schema;
}

/** The JSON Schema of a GraphQL input value, with the snake_case keys a REST body uses. */
export function inputSchema(type: GraphQLInputType): JsonSchema {
  if (isNonNullType(type)) return strip(inputSchema(type.ofType));
  if (isListType(type)) return nullable({ type: 'array', items: inputSchema(type.ofType) });
  if (isEnumType(type)) return nullable({ type: 'string', enum: type.getValues().map((value) => value.name) });
  if (isInputObjectType(type)) {
    const fields = Object.values(type.getFields());
    return nullable({
      type: 'object',
      properties: Object.fromEntries(fields.map((field) => [snakeCase(field.name), withDescription(inputSchema(field.type), field.description)])),
      required: fields.filter((field) => isNonNullType(field.type) && field.defaultValue === undefined).map((field) => snakeCase(field.name)),
    });
  }
  return nullable(scalars[type.name] ?? {});
}

/** Undoes `nullable`: the schema of a non-null value. */
function strip(schema: JsonSchema): JsonSchema {
  if (Array.isArray(schema.type)) {
    const { enum: values, ...rest } = schema;
    return { ...rest, type: schema.type[0], ...(values ? { enum: (values as unknown[]).filter((value) => value !== null) } : {}) };
  }
  if (Array.isArray(schema.anyOf)) return schema.anyOf[0] as JsonSchema;
  return schema;
}

/**
 * The JSON Schema of what a selection set answers: its response keys (aliases, so the legacy names)
 * with the types, nullability, enum values and descriptions of the GraphQL fields they select.
 */
export function selectionSchema(type: GraphQLOutputType, selectionSet: SelectionSetNode | undefined): JsonSchema {
  if (isNonNullType(type)) return strip(selectionSchema(type.ofType, selectionSet));
  if (isListType(type)) return nullable({ type: 'array', items: selectionSchema(type.ofType, selectionSet) });
  if (isEnumType(type)) return nullable({ type: 'string', enum: type.getValues().map((value) => value.name) });
  if (isObjectType(type)) {
    const fields = (selectionSet?.selections ?? []).filter((selection): selection is FieldNode => selection.kind === 'Field');
    const definitions = type.getFields();
    const properties = fields.map((field) => {
      const definition = definitions[field.name.value];
      const schema = field.name.value === '__typename' ? { type: 'string' } : selectionSchema(definition.type, field.selectionSet);
      return [(field.alias ?? field.name).value, withDescription(schema, definition?.description)];
    });
    return nullable({ type: 'object', properties: Object.fromEntries(properties), required: properties.map(([key]) => key) });
  }
  return nullable(scalars[getNamedType(type).name] ?? {});
}

/** The schema of a value that is never null (the root of an answer whose null is a 404). */
export const nonNull = strip;
