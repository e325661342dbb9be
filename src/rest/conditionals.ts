import {
  getNullableType,
  isListType,
  isObjectType,
  Kind,
  TypeInfo,
  visit,
  visitWithTypeInfo,
  type DocumentNode,
  type FieldNode,
  type GraphQLOutputType,
  type GraphQLSchema,
} from 'graphql';

/*
 * HTTP conditionals of the REST door (RFC 9110, issue 41). A row's version travels only as its
 * strong ETag, `"<version>"`: the legacy answers keep exactly their fields. A view that embeds other
 * versioned rows (a board's author and organization) answers `"<version>.<theirs>..."`, in the
 * view's order, so that the tag changes whenever the body would; If-Match compares the whole tag.
 */

/** The alias under which a view's versions ride along in its answer; removed before it is sent. */
const VERSION_KEY = '_v';

/** An operation whose answer carries the versions of the rows it reads. */
export interface VersionedOperation {
  document: DocumentNode;
  /** Whether its view embeds other versioned rows, so that its tag is more than the row's version. */
  composite: boolean;
}

/** Whether a field of this type answers one row that has a version. */
export function isVersionedRow(type: GraphQLOutputType | undefined): boolean {
  const nullable = type && getNullableType(type);
  return isObjectType(nullable) && !!nullable.getFields().version;
}

/**
 * The operation with `_v: version` first in the selection of every versioned row it reads. The first
 * is the answered row's own (the root field's value, or the payload's one field).
 */
export function withVersions(document: DocumentNode, schema: GraphQLSchema): VersionedOperation {
  const typeInfo = new TypeInfo(schema);
  const field: FieldNode = {
    kind: Kind.FIELD,
    alias: { kind: Kind.NAME, value: VERSION_KEY },
    name: { kind: Kind.NAME, value: 'version' },
  };
  let rows = 0;
  const versioned = visit(
    document,
    visitWithTypeInfo(typeInfo, {
      SelectionSet(node) {
        const type = typeInfo.getParentType();
        if (!isObjectType(type) || !type.getFields().version || isListType(getNullableType(typeInfo.getType()!)))
          return undefined;
        rows++;
        return { ...node, selections: [field, ...node.selections] };
      },
    }),
  );
  return { document: versioned, composite: rows > 1 };
}

/** A planned answer's `{"_v":3,` openings; the JSON is compact and `_v` comes first (a string value cannot hold an unescaped quote). */
const versionKeys = new RegExp(`\\{"${VERSION_KEY}":(\\d+),?`, 'g');

/** A JSON text without its versions, and its tag: the versions in the order they came. */
export function untagText(text: string): { text: string; tag: string | undefined } {
  const versions: string[] = [];
  const stripped = text.replace(versionKeys, (_, version: string) => {
    versions.push(version);
    return '{';
  });
  return { text: stripped, tag: tagOf(versions) };
}

/** A resolved answer without its versions (removed in place), and its tag. */
export function untagValue(value: unknown): string | undefined {
  const versions: string[] = [];
  const walk = (node: unknown) => {
    if (Array.isArray(node)) node.forEach(walk);
    else if (node && typeof node === 'object') {
      const record = node as Record<string, unknown>;
      if (VERSION_KEY in record) {
        versions.push(String(record[VERSION_KEY]));
        delete record[VERSION_KEY];
      }
      Object.values(record).forEach(walk);
    }
  };
  walk(value);
  return tagOf(versions);
}

const tagOf = (versions: string[]) => (versions.length ? `"${versions.join('.')}"` : undefined);

/** The row's own version in a tag of this gateway (`"3"` or `"3.1.7"`); undefined for any other tag. */
export function versionOfTag(tag: string): number | undefined {
  const match = /^"(\d+)(\.\d+)*"$/.exec(tag);
  return match ? Number(match[1]) : undefined;
}

/** An If-Match or If-None-Match field: any (`*`), or its entity tags as sent (`"3"`, `W/"3"`); undefined when absent. */
export function entityTags(field: string | undefined): '*' | string[] | undefined {
  if (field === undefined) return undefined;
  if (field.trim() === '*') return '*';
  return field.match(/(W\/)?"[^"]*"/g) ?? [];
}

/** If-None-Match (weak comparison: `W/"3"` matches `"3"`): whether a GET answers 304. */
export function noneMatch(tags: '*' | string[] | undefined, current: string): boolean {
  if (tags === undefined) return false;
  return tags === '*' || tags.some((tag) => tag.replace(/^W\//, '') === current);
}

/** If-Match (strong comparison: a weak tag never matches): the tags that may equal the current one. */
export const strongTags = (tags: string[]) => tags.filter((tag) => !tag.startsWith('W/'));
