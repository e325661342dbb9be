import * as enums from '../../generated/prisma/enums.js';
import { badUserInput } from '../errors.js';
import { MAX_ROW_ID } from '../pagination.js';

/** The format tag of a whiteboard document; a change that old readers cannot take gets a new number. */
export const FORMAT = 'whiteboard-gateway/1';

/** An attribute value as a document holds it: a string (STRING, TEXT, CHOICE, DATE as YYYY-MM-DD), a number or a boolean. */
export type DocumentValue = string | number | boolean;

export interface DocumentObject {
  /** The object's id on the board it came from; connections and relations in the document refer to it. */
  id: number;
  name: string;
  description: string;
  /** Row id of a class of the importing organization, or null. */
  classConfId: number | null;
  instances: { x: number; y: number; width: number; height: number; zIndex: number }[];
  /** Values by attribute code. */
  attributes: Record<string, DocumentValue>;
}

export interface DocumentConnection {
  id: number;
  sourceObjectId: number;
  targetObjectId: number;
  name: string;
  color: string;
  direction: enums.ObjectConnectionDirection;
  shape: enums.ObjectConnectionShape;
  style: enums.ObjectConnectionStyle;
}

export interface DocumentStream {
  name: string;
  description: string;
  icon: string;
  color: string;
  /** In their order. */
  slides: {
    name: string;
    description: string;
    connectionsIsUsed: boolean;
    enableCamera: boolean;
    cameraX1: number;
    cameraY1: number;
    cameraX2: number;
    cameraY2: number;
    enableDescription: boolean;
  }[];
  /** The steps, in their order. */
  connections: { objectConnectionId: number; direction: enums.DataStreamConnectionDirection; description: string }[];
}

export interface DocumentHighlight {
  name: string;
  color: string;
  classConfId: number;
  attributeCode: string;
  operand: enums.HighlightOperand;
  value: string;
  isActive: boolean;
  /** The `id` of a group in the document, or null. */
  groupId: number | null;
}

export interface WhiteboardDocument {
  format: typeof FORMAT;
  whiteboard: { name: string; description: string };
  objects: DocumentObject[];
  objectConnections: DocumentConnection[];
  relations: { parentObjectId: number; childObjectId: number }[];
  dataStreams: DocumentStream[];
  highlightGroups: { id: number; name: string; isActive: boolean }[];
  highlights: DocumentHighlight[];
}

// ---------------------------------------------------------------- reading, with the path of what is wrong

/** Where the document is in the mutation's input: the start of every path a refusal names. */
export const ROOT = 'input.document';

function fail(path: string, message: string): never {
  throw badUserInput(`${path.slice('input.'.length)} ${message}`, path);
}

function record(value: unknown, path: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) fail(path, 'must be an object');
  return value as Record<string, unknown>;
}

/** A list field; absent means empty. */
function list<T>(
  parent: Record<string, unknown>,
  key: string,
  path: string,
  item: (value: unknown, path: string) => T,
): T[] {
  const value = parent[key];
  if (value === undefined) return [];
  if (!Array.isArray(value)) fail(`${path}.${key}`, 'must be a list');
  return value.map((element, index) => item(element, `${path}.${key}[${index}]`));
}

function text(
  parent: Record<string, unknown>,
  key: string,
  path: string,
  options: { required?: boolean; maxLength?: number } = {},
): string {
  const value = parent[key];
  if (value === undefined && !options.required) return '';
  if (typeof value !== 'string') fail(`${path}.${key}`, 'must be a string');
  const trimmed = value.trim();
  if (options.required && trimmed === '') fail(`${path}.${key}`, 'cannot be empty');
  const maxLength = options.maxLength ?? 255;
  if (trimmed.length > maxLength) fail(`${path}.${key}`, `is longer than ${maxLength} characters`);
  return trimmed;
}

function number(parent: Record<string, unknown>, key: string, path: string, fallback: number, integer = false): number {
  const value = parent[key];
  if (value === undefined) return fallback;
  if (
    typeof value !== 'number' ||
    !Number.isFinite(value) ||
    Math.abs(value) > 1e9 ||
    (integer && !Number.isInteger(value))
  ) {
    fail(`${path}.${key}`, `must be ${integer ? 'an integer' : 'a number'}`);
  }
  return value;
}

function flag(parent: Record<string, unknown>, key: string, path: string, fallback: boolean): boolean {
  const value = parent[key];
  if (value === undefined) return fallback;
  if (typeof value !== 'boolean') fail(`${path}.${key}`, 'must be true or false');
  return value;
}

function oneOf<T extends string>(
  parent: Record<string, unknown>,
  key: string,
  path: string,
  values: Record<string, T>,
  fallback: T,
): T {
  const value = parent[key];
  if (value === undefined) return fallback;
  if (!Object.values(values).includes(value as T))
    fail(`${path}.${key}`, `must be one of ${Object.values(values).join(', ')}`);
  return value as T;
}

function id(parent: Record<string, unknown>, key: string, path: string): number {
  const value = parent[key];
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > MAX_ROW_ID)
    fail(`${path}.${key}`, 'must be a positive integer id');
  return value;
}

function optionalId(parent: Record<string, unknown>, key: string, path: string): number | null {
  return parent[key] == null ? null : id(parent, key, path);
}

/** Ids must be unique within their list, and references must name one of them. */
function uniqueIds(rows: { id: number }[], listPath: string): Set<number> {
  const seen = new Set<number>();
  rows.forEach((row, index) => {
    if (seen.has(row.id)) fail(`${listPath}[${index}].id`, `repeats id ${row.id}`);
    seen.add(row.id);
  });
  return seen;
}

function reference(ids: Set<number>, value: number, path: string, what: string): void {
  if (!ids.has(value)) fail(path, `names no ${what} of the document (id ${value})`);
}

function readObject(value: unknown, path: string): DocumentObject {
  const row = record(value, path);
  const attributes = row.attributes === undefined ? {} : record(row.attributes, `${path}.attributes`);
  for (const [code, attribute] of Object.entries(attributes)) {
    if (!['string', 'number', 'boolean'].includes(typeof attribute))
      fail(`${path}.attributes.${code}`, 'must be a string, a number or a boolean');
  }
  return {
    id: id(row, 'id', path),
    name: text(row, 'name', path, { required: true }),
    description: text(row, 'description', path, { maxLength: 10_000 }),
    classConfId: optionalId(row, 'classConfId', path),
    instances: list(row, 'instances', path, (instance, at) => {
      const fields = record(instance, at);
      return {
        x: number(fields, 'x', at, 0),
        y: number(fields, 'y', at, 0),
        width: number(fields, 'width', at, 100),
        height: number(fields, 'height', at, 100),
        zIndex: number(fields, 'zIndex', at, 0, true),
      };
    }),
    attributes: attributes as Record<string, DocumentValue>,
  };
}

function readConnection(value: unknown, path: string): DocumentConnection {
  const row = record(value, path);
  return {
    id: id(row, 'id', path),
    sourceObjectId: id(row, 'sourceObjectId', path),
    targetObjectId: id(row, 'targetObjectId', path),
    name: text(row, 'name', path),
    color: text(row, 'color', path, { maxLength: 32 }),
    direction: oneOf(row, 'direction', path, enums.ObjectConnectionDirection, 'FORWARD'),
    shape: oneOf(row, 'shape', path, enums.ObjectConnectionShape, 'STRAIGHT'),
    style: oneOf(row, 'style', path, enums.ObjectConnectionStyle, 'SOLID'),
  };
}

function readStream(value: unknown, path: string): DocumentStream {
  const row = record(value, path);
  return {
    name: text(row, 'name', path, { required: true }),
    description: text(row, 'description', path, { maxLength: 10_000 }),
    icon: text(row, 'icon', path),
    color: text(row, 'color', path, { maxLength: 32 }),
    slides: list(row, 'slides', path, (slide, at) => {
      const fields = record(slide, at);
      return {
        name: text(fields, 'name', at, { required: true }),
        description: text(fields, 'description', at, { maxLength: 10_000 }),
        connectionsIsUsed: flag(fields, 'connectionsIsUsed', at, false),
        enableCamera: flag(fields, 'enableCamera', at, false),
        cameraX1: number(fields, 'cameraX1', at, 0),
        cameraY1: number(fields, 'cameraY1', at, 0),
        cameraX2: number(fields, 'cameraX2', at, 0),
        cameraY2: number(fields, 'cameraY2', at, 0),
        enableDescription: flag(fields, 'enableDescription', at, false),
      };
    }),
    connections: list(row, 'connections', path, (step, at) => {
      const fields = record(step, at);
      return {
        objectConnectionId: id(fields, 'objectConnectionId', at),
        direction: oneOf(fields, 'direction', at, enums.DataStreamConnectionDirection, 'FORWARD'),
        description: text(fields, 'description', at, { maxLength: 10_000 }),
      };
    }),
  };
}

function readHighlight(value: unknown, path: string): DocumentHighlight {
  const row = record(value, path);
  return {
    name: text(row, 'name', path, { required: true }),
    color: text(row, 'color', path, { maxLength: 32 }),
    classConfId: id(row, 'classConfId', path),
    attributeCode: text(row, 'attributeCode', path, { required: true }),
    operand: oneOf(row, 'operand', path, enums.HighlightOperand, 'EQUAL'),
    value: text(row, 'value', path),
    isActive: flag(row, 'isActive', path, true),
    groupId: optionalId(row, 'groupId', path),
  };
}

/**
 * Checks a document's shape and its references within itself, naming the first wrong part
 * (`input.document.objects[3].name`). References to the organization's classes are checked on import.
 * `board` says whether the whiteboard section is needed (a new board) or ignored (objects into a board).
 */
export function readDocument(value: unknown, board: boolean): WhiteboardDocument {
  const document = record(value, ROOT);
  if (document.format !== FORMAT) fail(`${ROOT}.format`, `must be "${FORMAT}"`);
  const whiteboard = board ? record(document.whiteboard, `${ROOT}.whiteboard`) : {};
  const parsed: WhiteboardDocument = {
    format: FORMAT,
    whiteboard: board
      ? {
          name: text(whiteboard, 'name', `${ROOT}.whiteboard`, { required: true }),
          description: text(whiteboard, 'description', `${ROOT}.whiteboard`, { maxLength: 10_000 }),
        }
      : { name: '', description: '' },
    objects: list(document, 'objects', ROOT, readObject),
    objectConnections: list(document, 'objectConnections', ROOT, readConnection),
    relations: list(document, 'relations', ROOT, (relation, at) => {
      const fields = record(relation, at);
      return { parentObjectId: id(fields, 'parentObjectId', at), childObjectId: id(fields, 'childObjectId', at) };
    }),
    dataStreams: board ? list(document, 'dataStreams', ROOT, readStream) : [],
    highlightGroups: board
      ? list(document, 'highlightGroups', ROOT, (group, at) => {
          const fields = record(group, at);
          return {
            id: id(fields, 'id', at),
            name: text(fields, 'name', at, { required: true }),
            isActive: flag(fields, 'isActive', at, true),
          };
        })
      : [],
    highlights: board ? list(document, 'highlights', ROOT, readHighlight) : [],
  };

  const objectIds = uniqueIds(parsed.objects, `${ROOT}.objects`);
  const connectionIds = uniqueIds(parsed.objectConnections, `${ROOT}.objectConnections`);
  const groupIds = uniqueIds(parsed.highlightGroups, `${ROOT}.highlightGroups`);
  parsed.objectConnections.forEach((connection, index) => {
    reference(objectIds, connection.sourceObjectId, `${ROOT}.objectConnections[${index}].sourceObjectId`, 'object');
    reference(objectIds, connection.targetObjectId, `${ROOT}.objectConnections[${index}].targetObjectId`, 'object');
  });
  const pairs = new Set<string>();
  parsed.relations.forEach((relation, index) => {
    const at = `${ROOT}.relations[${index}]`;
    reference(objectIds, relation.parentObjectId, `${at}.parentObjectId`, 'object');
    reference(objectIds, relation.childObjectId, `${at}.childObjectId`, 'object');
    if (relation.parentObjectId === relation.childObjectId) fail(`${at}.childObjectId`, 'cannot be its own parent');
    const pair = `${relation.parentObjectId}>${relation.childObjectId}`;
    if (pairs.has(pair)) fail(at, 'repeats a relation');
    pairs.add(pair);
  });
  for (const [index, stream] of parsed.dataStreams.entries()) {
    for (const [position, step] of stream.connections.entries()) {
      reference(
        connectionIds,
        step.objectConnectionId,
        `${ROOT}.dataStreams[${index}].connections[${position}].objectConnectionId`,
        'object connection',
      );
    }
  }
  parsed.highlights.forEach((highlight, index) => {
    if (highlight.groupId !== null)
      reference(groupIds, highlight.groupId, `${ROOT}.highlights[${index}].groupId`, 'highlight group');
  });
  return parsed;
}
