import { badUserInput } from './errors.js';

// Relay's default global id: base64 of "Type:rowId". A malformed one is the caller's error, not ours.
export function decodeGlobalId(globalId: string): { typename: string; id: string } {
  const decoded = Buffer.from(globalId, 'base64').toString('utf8');
  const separator = decoded.indexOf(':');
  const typename = decoded.slice(0, separator);
  const id = decoded.slice(separator + 1);
  if (separator <= 0 || !/^[A-Za-z_]\w*$/.test(typename) || !/^\d{1,10}$/.test(id)) {
    throw badUserInput(`"${globalId}" is not a valid global id`, 'id');
  }
  return { typename, id };
}

/** Every node's global id wraps its row id; a node id with no row resolves to null, not an error. */
export const rowIdNode = { id: { field: 'id' as const }, nullable: true as const };
