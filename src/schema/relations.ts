import { relationTarget, type ModelName } from '../auth/tenancy.js';
import type { PlannedQuery, Row } from '../db/delegate.js';
import { getDatamodel } from '../generated/pothos-types.js';
import type PrismaTypes from '../generated/pothos-types.js';
import { readPlan } from '../read-plans/extensions.js';
import type { Context } from './context.js';
import { whenId } from './loaders.js';

type Relations<M extends ModelName> = PrismaTypes[M]['Relations'];

/** The relations of a model that reach one row. */
type ToOne<M extends ModelName> = {
  [R in keyof Relations<M> & string]: Relations<M>[R] extends { Shape: unknown[] } ? never : R;
}[keyof Relations<M> & string];

type Target<M extends ModelName, R extends ToOne<M>> = Relations<M>[R] extends { Name: infer N extends ModelName }
  ? N
  : never;

const foreignKeyOf = (model: ModelName, relation: string) =>
  getDatamodel().datamodel.models[model].fields.find((field) => field.name === relation)!.relationFromFields![0];

/**
 * A to-one relation that may leave the organization (an author, a referenced file, class or
 * object): the row comes through the request's row loader under its model's tenancy, so it is null
 * when the caller may not see it, and the rows of one level cost one statement. Prisma filters no
 * required to-one relation, hence the loader; the read planner joins it under the same rule
 * (`relationTenancy`).
 */
export function visibleRelation<M extends ModelName, R extends ToOne<M>>(model: M, relation: R) {
  const target = relationTarget(model, relation) as Target<M, R>;
  const foreignKey = foreignKeyOf(model, relation) as keyof Row<M>;
  return {
    type: target,
    nullable: true as const,
    description:
      target === 'User'
        ? 'Null when the caller shares no organization with that user.'
        : 'Null when it belongs to an organization the caller is not in.',
    extensions: readPlan({ relation }),
    resolve: (query: PlannedQuery<Target<M, R>>, parent: Row<M>, _args: object, ctx: Context) =>
      whenId(query, parent[foreignKey] as number | null, (selection, id) => ctx.loaders.row(target, selection, id)),
  };
}
