import { Kind, valueFromASTUntyped } from 'graphql';
import type { Principal } from '../../auth/principal.js';
import { organizationOf, organizationSelect, tenancyWhere, visibleOrganizationId } from '../../auth/tenancy.js';
import { prisma } from '../../db/index.js';
import { builder } from '../builder.js';
import { storedValue } from '../objects/attribute-values.js';
import { FORMAT, type DocumentValue, type WhiteboardDocument } from './document.js';
import { principalOf } from '../context.js';

builder.scalarType('JSON', {
  description: 'Any JSON value.',
  serialize: (value) => value,
  parseValue: (value) => value,
  parseLiteral: (ast, variables) => {
    if (ast.kind === Kind.NULL) return null;
    return valueFromASTUntyped(ast, variables);
  },
});

/** A value as a document holds it: dates as YYYY-MM-DD, the rest as JSON. */
function documentValue(value: ReturnType<typeof storedValue>): DocumentValue | null {
  return value instanceof Date ? value.toISOString().slice(0, 10) : value;
}

/** The fields `keys` of `row`, in that order: what a document holds of it. */
const pick = <T, K extends keyof T>(row: T, keys: readonly K[]) =>
  Object.fromEntries(keys.map((key) => [key, row[key]])) as Pick<T, K>;

// A class attribute is reached from the board's rows by reference, so it may belong to another
// organization (relationTenancy): its organization is read along, and such references left out.
const attributeWithOrganization = { code: true, type: true, ...organizationSelect('ClassConfAttribute') } as const;

/** The board with everything on it, read in one statement (the relations are joined). */
function loadBoard(rowId: number, where: Record<string, unknown>) {
  const byId = { orderBy: { id: 'asc' as const } };
  const byOrder = { orderBy: [{ order: 'asc' as const }, { id: 'asc' as const }] };
  return prisma().whiteboard.findFirst({
    relationLoadStrategy: 'join',
    where: { id: rowId, AND: [where] },
    include: {
      objects: {
        ...byId,
        include: {
          instances: byId,
          attributes: { ...byId, include: { attribute: { select: attributeWithOrganization } } },
          childRelations: { ...byId, select: { childObjectId: true } },
        },
      },
      objectConnections: byId,
      dataStreams: { ...byId, include: { slides: byOrder, connections: byOrder } },
      highlightGroups: byId,
      highlights: { ...byId, include: { attribute: { select: attributeWithOrganization } } },
    },
  });
}

function toDocument(
  board: NonNullable<Awaited<ReturnType<typeof loadBoard>>>,
  principal: Principal,
): WhiteboardDocument & { exportedAt: string; source: object } {
  const visible = (row: { attribute: object }) =>
    visibleOrganizationId(principal, organizationOf('ClassConfAttribute', row.attribute)) !== null;
  return {
    format: FORMAT,
    exportedAt: new Date().toISOString(),
    source: { whiteboardId: board.id, organizationId: board.organizationId },
    whiteboard: { name: board.name, description: board.description },
    objects: board.objects.map((object) => ({
      id: object.id,
      name: object.name,
      description: object.description,
      classConfId: object.classConfId,
      instances: object.instances.map((instance) => pick(instance, ['x', 'y', 'width', 'height', 'zIndex'])),
      attributes: Object.fromEntries(
        object.attributes
          .filter(visible)
          .map((row) => [row.attribute.code, documentValue(storedValue(row.attribute.type, row))] as const)
          .filter((entry): entry is [string, DocumentValue] => entry[1] !== null),
      ),
    })),
    objectConnections: board.objectConnections.map((connection) =>
      pick(connection, ['id', 'sourceObjectId', 'targetObjectId', 'name', 'color', 'direction', 'shape', 'style']),
    ),
    relations: board.objects.flatMap((object) =>
      object.childRelations.map(({ childObjectId }) => ({ parentObjectId: object.id, childObjectId })),
    ),
    dataStreams: board.dataStreams.map((stream) => ({
      name: stream.name,
      description: stream.description,
      icon: stream.icon,
      color: stream.color,
      slides: stream.slides.map((slide) =>
        pick(slide, [
          'name',
          'description',
          'connectionsIsUsed',
          'enableCamera',
          'cameraX1',
          'cameraY1',
          'cameraX2',
          'cameraY2',
          'enableDescription',
        ]),
      ),
      connections: stream.connections.map((connection) =>
        pick(connection, ['objectConnectionId', 'direction', 'description']),
      ),
    })),
    highlightGroups: board.highlightGroups.map((group) => pick(group, ['id', 'name', 'isActive'])),
    highlights: board.highlights.filter(visible).map((highlight) => ({
      name: highlight.name,
      color: highlight.color,
      classConfId: highlight.classConfId,
      attributeCode: highlight.attribute.code,
      operand: highlight.operand,
      value: highlight.value,
      isActive: highlight.isActive,
      groupId: highlight.groupId,
    })),
  };
}

builder.queryField('exportWhiteboard', (t) =>
  t.field({
    type: 'JSON',
    nullable: true,
    description: `The board with everything on it as a JSON document (format "${FORMAT}", see docs/import-export.md); null when there is no such board. Classes are referenced by row id, attribute values by attribute code.`,
    args: { rowId: t.arg.int({ required: true }) },
    resolve: async (_root, args, ctx) => {
      const board = await loadBoard(args.rowId, tenancyWhere('Whiteboard', principalOf(ctx)));
      return board && toDocument(board, principalOf(ctx));
    },
  }),
);
