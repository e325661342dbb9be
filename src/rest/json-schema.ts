import { isDeepStrictEqual } from 'node:util';
import {
  getNamedType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isObjectType,
  type FieldNode,
  type GraphQLEnumType,
  type GraphQLInputObjectType,
  type GraphQLInputType,
  type GraphQLObjectType,
  type GraphQLOutputType,
  type SelectionSetNode,
} from 'graphql';
import { snakeCase } from './names.js';

/** A JSON Schema (2020-12, as OpenAPI 3.1 uses it). */
export type JsonSchema = Record<string, unknown>;

// How each GraphQL scalar travels in JSON; a custom scalar missing here (JSON) is any JSON value.
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
  return (schema.format === 'date-time' ? 'date-time' : (schema.type as string | undefined)) ?? 'object';
}

/** A reference to the schema `name` of the document's components. */
export const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });

function nullable(schema: JsonSchema): JsonSchema {
  // Any JSON value already includes null (and an `anyOf` with it would be illogical).
  if (!Object.keys(schema).length) return schema;
  if (typeof schema.type === 'string') return { ...schema, type: [schema.type, 'null'] };
  return { anyOf: [schema, { type: 'null' }] };
}

/** Undoes `nullable`: the schema of a value that is never null (a non-null type; the root of an answer whose null is a 404). */
export function nonNull(schema: JsonSchema): JsonSchema {
  if (Array.isArray(schema.type)) return { ...schema, type: schema.type[0] };
  if (Array.isArray(schema.anyOf)) return schema.anyOf[0] as JsonSchema;
  return schema;
}

export function withDescription(schema: JsonSchema, description: string | null | undefined): JsonSchema {
  return description ? { ...schema, description } : schema;
}

/** Where an object is nested: the name of the schema holding it and its key there. */
export interface NestedAt {
  parent: string;
  key: string;
}

/** The names the document gives its enums and objects (schema-names.ts). */
export interface SchemaNaming {
  enum(type: GraphQLEnumType): string;
  input(type: GraphQLInputObjectType): string;
  /** The name of what `selectionSet` answers of `type`; `at`: the schema it is nested in, and its key there. */
  selection(type: GraphQLObjectType, selectionSet: SelectionSetNode, at: NestedAt | undefined): string;
}

/**
 * The JSON Schemas of GraphQL values with the legacy's snake_case keys. Every enum and object is a
 * named schema in `schemas` that the others refer to by `$ref`, so a generated client has one type
 * per legacy schema instead of an anonymous copy at each use.
 */
export class JsonSchemas {
  readonly schemas: Record<string, JsonSchema> = {};

  constructor(private readonly naming: SchemaNaming) {}

  /** A `$ref` to `schema` under `name`; one name given two different schemas is a bug of the naming. */
  define(name: string, schema: JsonSchema): JsonSchema {
    const known = this.schemas[name];
    if (known && !isDeepStrictEqual(known, schema)) throw new Error(`OpenAPI: two different schemas named ${name}`);
    this.schemas[name] = schema;
    return ref(name);
  }

  /** The schema of a GraphQL input value (a parameter, a body field). */
  input(type: GraphQLInputType): JsonSchema {
    if (isNonNullType(type)) return nonNull(this.input(type.ofType));
    if (isListType(type)) return nullable({ type: 'array', items: this.input(type.ofType) });
    if (isEnumType(type)) return nullable(this.enum(type));
    if (isInputObjectType(type)) return nullable(this.inputObject(type));
    return nullable(scalars[type.name] ?? {});
  }

  /**
   * The schema of what a selection set answers: its response keys (aliases, so the legacy names)
   * with the types, nullability, enum values and descriptions of the GraphQL fields they select.
   */
  selection(type: GraphQLOutputType, selectionSet: SelectionSetNode | undefined, at?: NestedAt): JsonSchema {
    if (isNonNullType(type)) return nonNull(this.selection(type.ofType, selectionSet, at));
    if (isListType(type)) return nullable({ type: 'array', items: this.selection(type.ofType, selectionSet, at) });
    if (isEnumType(type)) return nullable(this.enum(type));
    if (isObjectType(type) && selectionSet) return nullable(this.object(type, selectionSet, at));
    return nullable(scalars[getNamedType(type).name] ?? {});
  }

  private enum(type: GraphQLEnumType): JsonSchema {
    return this.define(
      this.naming.enum(type),
      withDescription({ type: 'string', enum: type.getValues().map((value) => value.name) }, type.description),
    );
  }

  private inputObject(type: GraphQLInputObjectType): JsonSchema {
    const name = this.naming.input(type);
    // Defined once per type; a placeholder first, since an input may nest itself (a filter's `and`).
    if (this.schemas[name]) return ref(name);
    this.schemas[name] = {};
    const fields = Object.values(type.getFields());
    this.schemas[name] = withDescription(
      {
        type: 'object',
        properties: Object.fromEntries(
          fields.map((field) => [snakeCase(field.name), withDescription(this.input(field.type), field.description)]),
        ),
        required: fields
          .filter((field) => isNonNullType(field.type) && field.defaultValue === undefined)
          .map((field) => snakeCase(field.name)),
      },
      type.description,
    );
    return ref(name);
  }

  private object(type: GraphQLObjectType, selectionSet: SelectionSetNode, at: NestedAt | undefined): JsonSchema {
    const name = this.naming.selection(type, selectionSet, at);
    const fields = selectionSet.selections.filter((selection): selection is FieldNode => selection.kind === 'Field');
    const definitions = type.getFields();
    const properties = fields.map((field) => {
      const key = (field.alias ?? field.name).value;
      const definition = definitions[field.name.value];
      const schema =
        field.name.value === '__typename'
          ? { type: 'string' }
          : this.selection(definition.type, field.selectionSet, { parent: name, key });
      return [key, withDescription(schema, definition?.description)] as const;
    });
    return this.define(
      name,
      withDescription(
        { type: 'object', properties: Object.fromEntries(properties), required: properties.map(([key]) => key) },
        type.description,
      ),
    );
  }
}
