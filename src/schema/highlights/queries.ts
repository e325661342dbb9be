import { createContextCache } from '@pothos/core';
import { tenancyWhere } from '../../auth/tenancy.js';
import { prisma } from '../../db/index.js';
import type { ClassConfAttributeType, HighlightOperand } from '../../generated/prisma/enums.js';
import { builder } from '../builder.js';
import { findForChange } from '../changes.js';
import { Choice } from '../choices.js';
import { principalOf, type Context } from '../context.js';
import { notFound } from '../errors.js';
import { choicesFor } from '../objects/choices.js';
import { connectionOptions, withVisibleCursor } from '../pagination.js';
import { compileRule } from './rules.js';

const ruleSelect = {
  id: true,
  name: true,
  color: true,
  whiteboardId: true,
  classConfId: true,
  operand: true,
  value: true,
  attribute: { select: { id: true, type: true, choices: true } },
} as const;

/**
 * A rule reads its attribute, which the highlight reaches by reference and so may be another
 * organization's (relationTenancy): a rule on an attribute the caller may not see marks nothing.
 */
const visibleRule = (ctx: Context) => ({ attribute: tenancyWhere('ClassConfAttribute', principalOf(ctx)) });

interface HighlightRule {
  id: number;
  name: string;
  color: string;
  whiteboardId: number;
  classConfId: number;
  operand: HighlightOperand;
  value: string;
  attribute: { id: number; type: ClassConfAttributeType; choices: string[] };
}

/**
 * Row ids of the board's objects each highlight marks (its class, its rule on its attribute): one
 * statement loads the candidate objects with the values the rules read, whatever the number of rules.
 */
async function matchObjects(whiteboardId: number, highlights: HighlightRule[]): Promise<Map<number, number[]>> {
  if (highlights.length === 0) return new Map();
  const objects = await prisma().whiteboardObject.findMany({
    where: { whiteboardId, classConfId: { in: [...new Set(highlights.map((highlight) => highlight.classConfId))] } },
    select: {
      id: true,
      classConfId: true,
      attributes: {
        where: { attributeId: { in: [...new Set(highlights.map((highlight) => highlight.attribute.id))] } },
        select: { attributeId: true, valueStr: true, valueNumber: true, valueBool: true, valueDate: true },
      },
    },
    orderBy: { id: 'asc' },
  });
  return new Map(
    highlights.map((highlight) => {
      const marks = compileRule(highlight, highlight.attribute);
      const matching = objects.filter(
        (object) =>
          object.classConfId === highlight.classConfId &&
          marks(object.attributes.find((value) => value.attributeId === highlight.attribute.id)),
      );
      return [highlight.id, matching.map((object) => object.id)];
    }),
  );
}

const HighlightCheck = builder
  .objectRef<{ highlight: HighlightRule; objectIds: number[] }>('WhiteboardHighlightCheck')
  .implement({
    description: 'The objects one active highlight marks.',
    fields: (t) => ({
      highlightId: t.int({ resolve: (check) => check.highlight.id }),
      name: t.string({ resolve: (check) => check.highlight.name }),
      color: t.string({ resolve: (check) => check.highlight.color }),
      objectIds: t.intList({
        description: 'Row ids of the marked objects, ascending.',
        resolve: (check) => check.objectIds,
      }),
    }),
  });

builder.queryField('checkObjectsByHighlights', (t) =>
  t.field({
    type: [HighlightCheck],
    description:
      'Which objects of a board each active highlight marks (a highlight in a group counts while the group is active too).',
    args: { whiteboardId: t.arg.int({ required: true }) },
    resolve: async (_root, { whiteboardId }, ctx) => {
      const highlights = await prisma().whiteboardHighlight.findMany({
        where: {
          whiteboardId,
          isActive: true,
          OR: [{ groupId: null }, { group: { isActive: true } }],
          AND: [tenancyWhere('WhiteboardHighlight', principalOf(ctx)), visibleRule(ctx)],
        },
        select: ruleSelect,
        orderBy: { id: 'asc' },
      });
      // No highlight: either none is active, or the board is not the caller's to see.
      if (highlights.length === 0) await findForChange(ctx, 'Whiteboard', whiteboardId, 'Whiteboard');
      const matches = await matchObjects(whiteboardId, highlights);
      return highlights.map((highlight) => ({ highlight, objectIds: matches.get(highlight.id)! }));
    },
  }),
);

// A connection resolves its page and its total count separately; both read the one match of the request.
const objectsMarked = createContextCache(() => new Map<number, Promise<number[]>>());

function objectsMarkedBy(ctx: Context, highlightId: number): Promise<number[]> {
  const cache = objectsMarked(ctx);
  if (!cache.has(highlightId)) {
    cache.set(
      highlightId,
      (async () => {
        const highlight = await prisma().whiteboardHighlight.findFirst({
          where: { id: highlightId, AND: [tenancyWhere('WhiteboardHighlight', principalOf(ctx)), visibleRule(ctx)] },
          select: ruleSelect,
        });
        if (!highlight) throw notFound('Whiteboard highlight');
        return (await matchObjects(highlight.whiteboardId, [highlight])).get(highlight.id)!;
      })(),
    );
  }
  return cache.get(highlightId)!;
}

builder.queryField('whiteboardHighlightObjectInstances', (t) =>
  t.prismaConnection({
    type: 'WhiteboardObjectInstance',
    ...connectionOptions,
    description: 'Where the objects one highlight marks are drawn, active or not.',
    args: { highlightId: t.arg.int({ required: true }) },
    resolve: async (query, _root, args, ctx) =>
      prisma().whiteboardObjectInstance.findMany({
        ...(await withVisibleCursor('WhiteboardObjectInstance', query, args, ctx)),
        where: { objectId: { in: await objectsMarkedBy(ctx, args.highlightId) } },
        orderBy: { id: 'asc' },
      }),
    totalCount: async (_root, args, ctx) =>
      prisma().whiteboardObjectInstance.count({
        where: { objectId: { in: await objectsMarkedBy(ctx, args.highlightId) } },
      }),
  }),
);

builder.queryField('whiteboardHighlightClassConfChoices', (t) =>
  t.field({
    type: [Choice],
    description: 'The classes of the objects on a board, to build a highlight rule on.',
    args: { whiteboardId: t.arg.int({ required: true }) },
    resolve: (_root, { whiteboardId }, ctx) =>
      choicesFor(
        ctx,
        { model: 'Whiteboard', rowId: whiteboardId, label: 'Whiteboard' },
        prisma()
          .classConf.findMany({
            where: {
              objects: { some: { whiteboardId, ...tenancyWhere('WhiteboardObject', principalOf(ctx)) } },
              AND: [tenancyWhere('ClassConf', principalOf(ctx))],
            },
            select: { id: true, name: true },
            orderBy: [{ name: 'asc' }, { id: 'asc' }],
          })
          .then((classes) => classes.map((classConf) => ({ value: classConf.id, label: classConf.name }))),
      ),
  }),
);

builder.queryField('whiteboardHighlightAttributeChoices', (t) =>
  t.field({
    type: [Choice],
    description: 'The attributes of a class, in their order, to build a highlight rule on.',
    args: { classConfId: t.arg.int({ required: true }) },
    resolve: (_root, { classConfId }, ctx) =>
      choicesFor(
        ctx,
        { model: 'ClassConf', rowId: classConfId, label: 'Class configuration' },
        prisma()
          .classConfAttribute.findMany({
            where: { classConfId, ...tenancyWhere('ClassConfAttribute', principalOf(ctx)) },
            select: { id: true, name: true },
            orderBy: [{ order: 'asc' }, { id: 'asc' }],
          })
          .then((attributes) => attributes.map((attribute) => ({ value: attribute.id, label: attribute.name }))),
      ),
  }),
);
