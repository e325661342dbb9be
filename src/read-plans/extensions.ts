import type { ModelName } from '../auth/tenancy.js';
import type { Context } from '../schema/context.js';
import type { SQL } from './sql.js';

/** Prisma's arguments of a root read, as its resolver sends them. */
export interface FindArgs {
  where: Record<string, unknown>;
  orderBy?: unknown;
  skip?: number;
}

/** What the read planner knows of a field or type beyond what Pothos records; kept in its `extensions.readPlan`. */
export type ReadPlanExtension =
  /** A root list, or a lookup of one row by its key: the model and the arguments its resolver gives Prisma. */
  | {
      root: 'list' | 'single';
      model: ModelName;
      findArgs(args: Record<string, unknown>, ctx: Context): FindArgs;
    }
  /** A value computed from columns: SQL built from the columns, given as SQL fragments. */
  | { value(column: (field: string) => SQL): SQL }
  /**
   * A to-one relation the field loads itself (through the row loader, under the target's tenancy):
   * the planner joins it under the same rule as every relation.
   */
  | { relation: string }
  /** A field of an organization's id, null where the caller is not a member (visibleOrganizationId). */
  | { visibleOrganizationId: string }
  /** `node(id:)` (one) or `nodes(ids:)` (list): rows by global id, each under its type's tenancy. */
  | { nodes: 'one' | 'list' }
  /**
   * A related connection whose resolver loads, for one parent row, the page its `query` gives
   * (pageOfParent in the schema): the planner translates that query as for any relation.
   */
  | { pageOfParent: true }
  /** A node type whose global id wraps this column. */
  | { globalIdField: string };

export const readPlan = (extension: ReadPlanExtension) => ({ readPlan: extension });

/** Pothos's auth scopes of a field or type, which run in resolvers: what has any stays with the executor. */
export function authScopesOf(extensions: unknown): unknown {
  const options = (extensions as { pothosOptions?: { authScopes?: unknown; grantScopes?: unknown } } | null)
    ?.pothosOptions;
  return options?.authScopes ?? options?.grantScopes;
}
