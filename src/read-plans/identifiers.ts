import { decodeGlobalId } from '../schema/global-id.js';

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
