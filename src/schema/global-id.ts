import { tenancyWhere, type ModelName } from '../auth/tenancy.js';
import { principalOf, type Context } from './context.js';
import { badUserInput } from './errors.js';
import { readPlan } from '../read-plans/extensions.js';

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

/**
 * Node options shared by every type: the global id wraps the row id, and a node id with no row the
 * caller may see (none at all, or one of another organization) resolves to null, not an error.
 */
export function rowIdNode<M extends ModelName>(model: M) {
  return {
    id: { field: 'id' as const },
    extensions: readPlan({ globalIdField: 'id' }),
    nullable: true as const,
    findUnique: (id: string, ctx: Context) => ({ id: Number(id), AND: [tenancyWhere(model, principalOf(ctx))] }),
  };
}
