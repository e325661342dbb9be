import { tenancyWhere, visibleRowsWhere, type ModelName } from '../auth/tenancy.js';
import { delegateOf } from '../db/delegate.js';
import { prisma } from '../db/index.js';
import { builder } from './builder.js';
import { filterToWhere, modelFilter, modelOrder, orderToPrisma, type FilterKind, type FilterValue } from './filters.js';
import { badUserInput } from './errors.js';
import { connectionOptions, withVisibleCursor } from './pagination.js';
import { readPlan } from '../read-plans/extensions.js';
import { principalOf, type Context } from './context.js';

export interface RootFieldsSpec {
  /** The Prisma model behind the type. */
  model: ModelName;
  /** The GraphQL type name, when it differs from the model's. */
  typeName?: string;
  /** Name of the root connection, e.g. `whiteboards`. */
  list: string;
  /** Name of the root lookup by row id, e.g. `whiteboard`. */
  single: string;
  /** Columns the list can be filtered on, and how. */
  filter: Record<string, FilterKind>;
  /** Columns the list can be sorted by. */
  order: string[];
}

/** The rows `offset` skips; it pages forward only, so it is refused with `last`/`before`. */
function offsetOf(args: { offset?: number | null; last?: number | null; before?: string | null }): number {
  const offset = args.offset ?? 0;
  if (offset < 0) throw badUserInput(`Argument "offset" must not be negative, got ${offset}`, 'offset');
  if (offset > 0 && (args.last != null || args.before != null))
    throw badUserInput('Argument "offset" cannot be combined with last/before', 'offset');
  return offset;
}

/**
 * Adds the root connection (filter, orderBy, cursor pages, totalCount) and the lookup by `rowId` of
 * one entity family, both limited in the database query to the caller's organizations.
 */
export function defineRootFields(spec: RootFieldsSpec): void {
  const typeName = spec.typeName ?? spec.model;
  const Filter = modelFilter(typeName, spec.filter);
  const OrderBy = modelOrder(typeName, spec.order);
  const rows = () => delegateOf(prisma(), spec.model);
  // One definition of what each root field asks Prisma, for its resolver and for the read planner.
  const listArgs = (
    args: {
      filter?: FilterValue | null;
      orderBy?: { field: string; direction: 'ASC' | 'DESC' }[] | null;
      offset?: number | null;
      last?: number | null;
      before?: string | null;
    },
    ctx: Context,
  ) => ({
    where: { AND: [filterToWhere(args.filter), tenancyWhere(spec.model, principalOf(ctx))] },
    orderBy: orderToPrisma(args.orderBy),
    skip: offsetOf(args),
  });
  const singleArgs = (args: { rowId: number }, ctx: Context) => ({
    where: visibleRowsWhere(spec.model, principalOf(ctx), args.rowId),
  });

  builder.queryField(spec.list, (t) =>
    t.prismaConnection({
      type: spec.model,
      ...connectionOptions,
      description: `${typeName} rows, a page at a time.`,
      args: {
        filter: t.arg({ type: Filter }),
        orderBy: t.arg({ type: [OrderBy], description: 'Sort keys in order of precedence; the row id breaks ties.' }),
        offset: t.arg.int({
          description:
            'Rows to skip before the page (after `after`, when given), for offset paging; not with `last`/`before`.',
        }),
      },
      extensions: readPlan({ root: 'list', model: spec.model, findArgs: listArgs }),
      totalCount: (_parent, args, ctx) => rows().count({ where: listArgs(args, ctx).where }),
      resolve: async (query, _parent, args, ctx) => {
        const { where, orderBy, skip } = listArgs(args, ctx);
        return rows().findMany({
          ...(await withVisibleCursor(spec.model, query, args, ctx)),
          skip: (query.skip ?? 0) + skip,
          where,
          orderBy,
        });
      },
    }),
  );

  builder.queryField(spec.single, (t) =>
    t.prismaField({
      type: spec.model,
      nullable: true,
      description: `One ${typeName} by its database id; null when there is none.`,
      args: { rowId: t.arg.int({ required: true }) },
      extensions: readPlan({ root: 'single', model: spec.model, findArgs: singleArgs }),
      // Through the request's loader: aliased lookups of one selection share a statement.
      resolve: (query, _parent, args, ctx) => ctx.loaders.row(spec.model, query, args.rowId),
    }),
  );
}
