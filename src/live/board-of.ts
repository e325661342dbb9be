import { organizationPath, type OrganizationScopedModel } from '../auth/tenancy.js';
import { delegateOf, type Client, type Select } from '../db/delegate.js';

/** The models whose rows are on a board: every one whose way to its organization passes through a whiteboard. */
export function isOnBoard(model: string): model is OrganizationScopedModel {
  return (
    model === 'Whiteboard' || (organizationPath(model as OrganizationScopedModel)?.includes('whiteboard') ?? false)
  );
}

const prefixOf = (model: OrganizationScopedModel) =>
  organizationPath(model).slice(0, organizationPath(model).indexOf('whiteboard'));

/** A Prisma `select` reaching the id of a row's board (given to a `delete`, it is read before the row goes). */
export function boardSelect<M extends OrganizationScopedModel>(model: M): Select<M> {
  // Prisma's types cannot follow a relation path given as data (see organizationSelect).
  return (
    model === 'Whiteboard'
      ? { id: true }
      : prefixOf(model).reduceRight<object>((inner, key) => ({ [key]: { select: inner } }), { whiteboardId: true })
  ) as Select<M>;
}

/** Reads the board id out of a row loaded with `boardSelect`; undefined when the row does not carry it. */
export function boardOf(model: OrganizationScopedModel, row: object): number | undefined {
  if (model === 'Whiteboard') return (row as { id: number }).id;
  const value = [...prefixOf(model), 'whiteboardId'].reduce<unknown>(
    (value, key) => (value as Record<string, unknown> | undefined)?.[key],
    row,
  );
  return typeof value === 'number' ? value : undefined;
}

/** The board of each row: carried by the row (a deleted one) or read in the transaction that wrote it. */
export async function boardsOf(
  client: Client,
  model: OrganizationScopedModel,
  rows: { id: number }[],
): Promise<Map<number, number>> {
  const boards = new Map<number, number>();
  const missing: number[] = [];
  for (const row of rows) {
    const board = boardOf(model, row);
    if (board === undefined) missing.push(row.id);
    else boards.set(row.id, board);
  }
  if (missing.length > 0) {
    const found = await delegateOf(client, model).findMany({
      where: { id: { in: missing } },
      select: { id: true, ...boardSelect(model) },
    });
    for (const row of found) boards.set(row.id, boardOf(model, row)!);
  }
  return boards;
}
