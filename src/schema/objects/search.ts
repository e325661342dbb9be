import { tenancyWhere } from '../../auth/tenancy.js';
import { prisma } from '../../db/index.js';
import { builder } from '../builder.js';
import { principalOf, type Context } from '../context.js';
import { badUserInput } from '../errors.js';
import { containsText } from '../filters.js';
import { connectionOptions, withVisibleCursor } from '../pagination.js';

interface SearchArgs {
  query: string;
  whiteboardId?: number | null;
}

function searchWhere(args: SearchArgs, ctx: Context) {
  const text = args.query.trim();
  if (text === '') throw badUserInput('query cannot be empty', 'query');
  if (text.length > 255) throw badUserInput('query is longer than 255 characters', 'query');
  const contains = containsText(text);
  return {
    AND: [
      tenancyWhere('WhiteboardObject', principalOf(ctx)),
      args.whiteboardId == null ? {} : { whiteboardId: args.whiteboardId },
      { OR: [{ name: contains }, { attributes: { some: { valueStr: contains } } }] },
    ],
  };
}

builder.queryField('searchWhiteboardObjects', (t) =>
  t.prismaConnection({
    type: 'WhiteboardObject',
    ...connectionOptions,
    description: 'Objects whose name or a string attribute value contains the query, ignoring case; in row id order.',
    args: {
      query: t.arg.string({ required: true }),
      whiteboardId: t.arg.int({ description: 'Only objects of this board.' }),
    },
    resolve: async (query, _root, args, ctx) =>
      prisma().whiteboardObject.findMany({
        ...(await withVisibleCursor('WhiteboardObject', query, args, ctx)),
        where: searchWhere(args, ctx),
        orderBy: { id: 'asc' },
      }),
    totalCount: (_root, args, ctx) => prisma().whiteboardObject.count({ where: searchWhere(args, ctx) }),
  }),
);
