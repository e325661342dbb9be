import DataLoader from 'dataloader';
import type { Principal } from '../auth/principal.js';
import { visibleRowsWhere, type ModelName } from '../auth/tenancy.js';
import { delegateOf, matchedNoRow, type PlannedQuery, type Row } from '../db/delegate.js';
import { prisma } from '../db/index.js';
import { principalOf, type Loaders } from './context.js';
import { deletedSince } from './errors.js';

/** A request's loaders, made by its context factory. */
export function createLoaders(principal: Principal | null): Loaders {
  const loaders = new Map<string, DataLoader<number, Row<ModelName> | null>>();
  return {
    row<M extends ModelName>(model: M, selection: PlannedQuery<M>, id: number) {
      // Selections are plain data planned from the operation, so equal selections print alike.
      const key = `${model} ${JSON.stringify(selection)}`;
      let loader = loaders.get(key);
      if (!loader) {
        loader = new DataLoader((ids) => rowsByIds(model, selection, ids, principalOf({ principal })));
        loaders.set(key, loader);
      }
      // The key names the model, so the loader found is the one made for M.
      return loader.load(id) as Promise<Row<M> | null>;
    },
  };
}

/** Rows by id, in the order of `ids`, read with `selection`; null where the caller may not see the row (or it is gone). */
export async function rowsByIds<M extends ModelName>(
  model: M,
  selection: PlannedQuery<M>,
  ids: readonly number[],
  principal: Principal,
): Promise<(Row<M> | null)[]> {
  // The id places each row in the answer, whatever the field selected.
  const query = selection.select ? { ...selection, select: { ...selection.select, id: true } } : selection;
  const rows = await delegateOf(prisma(), model).findMany({
    ...query,
    where: visibleRowsWhere(model, principal, { in: [...ids] }),
  });
  const byId = new Map(rows.map((row) => [row.id, row]));
  return ids.map((id) => byId.get(id) ?? null);
}

/**
 * `read` with the planned query for the row `id` names; null, without a read, when there is no id (a
 * null foreign key, no active organization). The query is read either way: Pothos takes a planned
 * query never read for a forgotten spread (onUnusedQuery) and answers an error beside the null.
 */
export function whenId<Q extends object, T>(
  query: Q,
  id: number | null | undefined,
  read: (selection: Q, id: number) => T,
): T | null {
  const selection = { ...query };
  return id == null ? null : read(selection, id);
}

/**
 * One row by id, read with the query Pothos planned for the field that answers it (`me`, a mutation's
 * payload). With findFirst, not findUnique: Prisma pages the relations of a findUnique in SQL from a
 * cursor row's place wherever that row is, and those of any other read among the row's own rows, as
 * every other field answers them (pageOfParent).
 */
export function plannedRow<M extends ModelName>(model: M, query: PlannedQuery<M>, id: number): Promise<Row<M>> {
  return delegateOf(prisma(), model).findFirstOrThrow({ ...query, where: { id } });
}

/**
 * The row a mutation changed (or made), read for its payload as plannedRow reads it. It can be gone
 * without a fault: deleted by another request since the change committed, or, in a keyed request, since
 * an earlier attempt committed the step its retry answers from the change log. That is NOT_FOUND saying
 * the change was made, never a 500: the log keeps no copy of the row to answer it from.
 */
export function changedRow<M extends ModelName>(model: M, query: PlannedQuery<M>, id: number): Promise<Row<M>> {
  return plannedRow(model, query, id).catch((error) => {
    throw matchedNoRow(error) ? deletedSince(model, id) : error;
  });
}
