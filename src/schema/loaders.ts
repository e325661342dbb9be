import DataLoader from 'dataloader';
import type { Principal } from '../auth/principal.js';
import { visibleRowsWhere, type ModelName } from '../auth/tenancy.js';
import { delegateOf } from '../db/delegate.js';
import { prisma } from '../db/index.js';

/** What Pothos plans for a field of a Prisma type: `{ include }` or `{ select }`, spread into the Prisma call. */
export interface Selection {
  select?: Record<string, unknown>;
  include?: Record<string, unknown>;
}

/** The DataLoaders of one request, so their batches and caches never outlive it nor cross callers. */
export interface Loaders {
  /**
   * The row of `model` with this id, loaded with `selection`, or null when the caller may not see it:
   * the rows asked for in one tick with the same model and selection cost one statement.
   */
  row(model: ModelName, selection: Selection, id: number): Promise<object | null>;
}

export function createLoaders(principal: Principal): Loaders {
  const loaders = new Map<string, DataLoader<number, object | null>>();
  return {
    row(model, selection, id) {
      // Selections are plain data planned from the operation, so equal selections print alike.
      const key = `${model} ${JSON.stringify(selection)}`;
      let loader = loaders.get(key);
      if (!loader) {
        loader = new DataLoader((ids) => rowsByIds(model, selection, ids, principal));
        loaders.set(key, loader);
      }
      return loader.load(id);
    },
  };
}

async function rowsByIds(model: ModelName, selection: Selection, ids: readonly number[], principal: Principal): Promise<(object | null)[]> {
  // The id places each row in the answer, whatever the field selected.
  const query = selection.select ? { ...selection, select: { ...selection.select, id: true } } : selection;
  const rows = (await delegateOf(prisma(), model).findMany({ ...query, where: visibleRowsWhere(model, principal, { in: [...ids] }) })) as { id: number }[];
  const byId = new Map(rows.map((row) => [row.id, row]));
  return ids.map((id) => byId.get(id) ?? null);
}
