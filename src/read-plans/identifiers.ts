import { parsePrismaCursor } from '@pothos/plugin-prisma';
import { decodeGlobalId } from '../schema/global-id.js';
import { MAX_ROW_ID } from '../schema/pagination.js';

/**
 * The row id a connection cursor names, as the resolvers read it (Pothos's `GPC:` cursor of the
 * `id` column); undefined where they refuse it (BAD_USER_INPUT), for them to report.
 */
export function cursorRowId(cursor: unknown): number | undefined {
  if (typeof cursor !== 'string') return undefined;
  let id: unknown;
  try {
    id = parsePrismaCursor(cursor);
  } catch {
    return undefined;
  }
  return Number.isInteger(id) && Math.abs(id as number) <= MAX_ROW_ID ? (id as number) : undefined;
}

/** A global id's type name and row id as `node(id:)` reads it; undefined for a malformed one (BAD_USER_INPUT). */
export function globalIdParts(globalId: unknown): { typename: string; id: number } | undefined {
  if (typeof globalId !== 'string') return undefined;
  try {
    const { typename, id } = decodeGlobalId(globalId);
    return { typename, id: Number(id) };
  } catch {
    return undefined;
  }
}
