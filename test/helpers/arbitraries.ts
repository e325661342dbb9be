import fc from 'fast-check';
import {
  getNullableType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  type GraphQLInputType,
} from 'graphql';
import { globalId } from './graphql.js';

export type JsonSchema = Record<string, any>;

/** Values that no input should be able to turn into a 5xx: wrong types, NUL characters, huge numbers, deep nesting. */
export const hostile: fc.Arbitrary<unknown> = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.constantFrom(
    'a\u0000b',
    '\u0000',
    ' ',
    'x'.repeat(5_000),
    '9'.repeat(30),
    '-1',
    'null',
    '{}',
    '1e400',
    'NaN',
    '🙂',
  ),
  fc.integer(),
  fc.constantFrom(2 ** 31, -(2 ** 31) - 1, 2 ** 53, -1, 0, 1e300),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.integer(), { maxLength: 3 }),
  fc.constant(Array.from({ length: 200 }).reduce<unknown>((inner) => [inner], 'deep')),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.integer(), { maxKeys: 3 }),
);

/** Mostly rows that exist in the seed (small ids), sometimes anything. */
const id = fc.oneof(
  { weight: 4, arbitrary: fc.integer({ min: 1, max: 40 }) },
  fc.integer({ min: -5, max: 2 ** 31 - 1 }),
);

/** Values a JSON schema of the OpenAPI document admits, its `$ref`s resolved in `components`. */
export function fromSchema(
  schema: JsonSchema,
  components: Record<string, JsonSchema>,
  depth = 0,
): fc.Arbitrary<unknown> {
  if (schema.$ref) return fromSchema(components[schema.$ref.split('/').pop()], components, depth);
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives) return fc.oneof(...alternatives.map((inner: JsonSchema) => fromSchema(inner, components, depth)));
  if (schema.enum) return fc.constantFrom(...schema.enum);
  if (Array.isArray(schema.type))
    return fc.oneof(...schema.type.map((type: string) => fromSchema({ ...schema, type }, components, depth)));
  switch (schema.type) {
    case 'integer':
      return schema.minimum !== undefined || schema.maximum !== undefined
        ? fc.integer({ min: schema.minimum ?? -1000, max: schema.maximum ?? 1000 })
        : id;
    case 'number':
      return fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e6, max: 1e6 });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'string':
      if (schema.format === 'date-time')
        return fc
          .date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true })
          .map((date) => date.toISOString());
      if (schema.format === 'binary')
        return fc.uint8Array({ maxLength: 64 }).map((bytes) => new File([bytes], 'fuzz.bin'));
      return fc.string({ maxLength: Math.min(schema.maxLength ?? 30, 30) });
    case 'array':
      return depth > 3
        ? fc.constant([])
        : fc.array(fromSchema(schema.items ?? {}, components, depth + 1), { maxLength: 3 });
    case 'object': {
      if (depth > 3 || !schema.properties) return fc.constant({});
      const properties = Object.fromEntries(
        Object.entries(schema.properties as Record<string, JsonSchema>).map(([name, inner]) => [
          name,
          fromSchema(inner, components, depth + 1),
        ]),
      );
      return fc.record(properties, { requiredKeys: schema.required ?? [] });
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/** A valid value most of the time; otherwise one field (or the whole value) replaced by something hostile. */
export function validOrNot(schema: JsonSchema, components: Record<string, JsonSchema>): fc.Arbitrary<unknown> {
  const valid = fromSchema(schema, components);
  const broken = fc.tuple(valid, fc.string({ maxLength: 12 }), hostile).map(([value, key, bad]) => {
    if (!value || typeof value !== 'object' || Array.isArray(value)) return bad;
    const keys = Object.keys(value);
    const target = keys.length ? keys[key.length % keys.length] : key;
    return { ...value, [target]: bad };
  });
  return fc.oneof({ weight: 3, arbitrary: valid }, { weight: 2, arbitrary: broken });
}

/** GraphQL variables for an input type: mostly well typed, sometimes hostile. */
export function fromInputType(type: GraphQLInputType, depth = 0): fc.Arbitrary<unknown> {
  const nullable = getNullableType(type);
  const value = (() => {
    if (isListType(nullable))
      return depth > 3 ? fc.constant([]) : fc.array(fromInputType(nullable.ofType, depth + 1), { maxLength: 3 });
    if (isEnumType(nullable)) return fc.constantFrom(...nullable.getValues().map((entry) => entry.name));
    if (isInputObjectType(nullable)) {
      if (depth > 3) return fc.constant({});
      const fields = Object.values(nullable.getFields());
      return fc.record(Object.fromEntries(fields.map((field) => [field.name, fromInputType(field.type, depth + 1)])), {
        requiredKeys: fields.filter((field) => isNonNullType(field.type)).map((field) => field.name),
      });
    }
    const scalars: Record<string, fc.Arbitrary<unknown>> = {
      Int: id,
      Float: fc.double({ noNaN: true, noDefaultInfinity: true }),
      Boolean: fc.boolean(),
      String: fc.string({ maxLength: 30 }),
      ID: fc.oneof(
        fc.string({ maxLength: 20 }),
        fc.integer({ min: 1, max: 40 }).map((n) => globalId('Whiteboard', n)),
      ),
      DateTime: fc
        .date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true })
        .map((date) => date.toISOString()),
      JSON: fc.jsonValue({ maxDepth: 2 }),
    };
    return scalars[nullable.name] ?? fc.string({ maxLength: 10 });
  })();
  return fc.oneof({ weight: 5, arbitrary: value }, { weight: 1, arbitrary: hostile });
}
