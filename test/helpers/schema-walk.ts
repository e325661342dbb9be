import {
  getNamedType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  type GraphQLField,
  type GraphQLInputType,
} from 'graphql';
import { schema } from '../../src/schema/index.js';

/** A literal that passes validation for any input type: only required fields, placeholder values. */
export function placeholderLiteral(type: GraphQLInputType): string {
  if (isNonNullType(type)) return placeholderLiteral(type.ofType);
  if (isListType(type)) return `[${placeholderLiteral(type.ofType)}]`;
  if (isEnumType(type)) return type.getValues()[0].name;
  if (isInputObjectType(type)) {
    const fields = Object.values(type.getFields()).filter((field) => isNonNullType(field.type));
    return `{ ${fields.map((field) => `${field.name}: ${placeholderLiteral(field.type)}`).join(', ')} }`;
  }
  // A file can only travel in a multipart request: the document takes it as the variable $upload.
  const scalars: Record<string, string> = {
    Int: '1',
    Float: '1',
    Boolean: 'false',
    ID: '"V2hpdGVib2FyZDox"',
    DateTime: '"2030-01-01T00:00:00Z"',
    Upload: '$upload',
  };
  return scalars[type.name] ?? '"x"';
}

/** The cheapest selection of a field's type: `__typename` for objects, nothing for scalars. */
function selection(field: GraphQLField<unknown, unknown>): string {
  const named = getNamedType(field.type);
  return isScalarType(named) || isEnumType(named) ? '' : '{ __typename }';
}

/** Every mutation of the schema, as a document with placeholder arguments (`$upload` where a file is required). */
export function everyMutation(): { name: string; document: string; upload: boolean }[] {
  return Object.values(schema.getMutationType()!.getFields()).map((field) => {
    const args = field.args
      .filter((arg) => isNonNullType(arg.type))
      .map((arg) => `${arg.name}: ${placeholderLiteral(arg.type)}`);
    const call = `${field.name}${args.length ? `(${args.join(', ')})` : ''} ${selection(field)}`;
    const upload = call.includes('$upload');
    return { name: field.name, upload, document: `mutation${upload ? '($upload: Upload!)' : ''} { ${call} }` };
  });
}

/** Root connections (`whiteboards`, ...) and the lookups by row id (`whiteboard(rowId:)`), with their node type. */
export function rootReads(): { list: string; single?: string; type: string }[] {
  const fields = Object.values(schema.getQueryType()!.getFields());
  const singles = new Map(
    fields
      .filter((field) => field.args.some((arg) => arg.name === 'rowId'))
      .map((field) => [getNamedType(field.type).name, field.name]),
  );
  return (
    fields
      // Lists that need arguments of their own (a search, a highlight's matches) are covered by their modules' tests.
      .filter(
        (field) =>
          getNamedType(field.type).name.endsWith('Connection') && field.args.some((arg) => arg.name === 'first'),
      )
      .filter((field) => !field.args.some((arg) => isNonNullType(arg.type)))
      .map((field) => {
        const connection = getNamedType(field.type);
        const edge = isObjectType(connection) ? getNamedType(connection.getFields().edges.type) : undefined;
        const node = edge && isObjectType(edge) ? getNamedType(edge.getFields().node.type) : undefined;
        return {
          list: field.name,
          single: singles.get(node?.name ?? ''),
          type: node?.name ?? '',
          rows: isObjectType(node),
        };
      })
      // Lists of rows of one type: the change log's pages (`changes`, events of several kinds, for
      // one board or organization) are covered by test/live-resume.test.ts.
      .filter((read) => read.rows)
      .map(({ rows: _, ...read }) => read)
  );
}
