import { brandWithType, type OutputType, type SchemaTypes } from '@pothos/core';
import { queryFromInfo } from '@pothos/plugin-prisma';
import { isObjectType, type GraphQLResolveInfo } from 'graphql';
import { visibleRowsWhere, type ModelName } from '../auth/tenancy.js';
import { principalOf, type Context } from './context.js';
import { badUserInput } from './errors.js';
import { MAX_ROW_ID } from './pagination.js';
import type { PlannedQuery } from '../db/delegate.js';
import { readPlan } from '../read-plans/extensions.js';

// Relay's default global id: base64 of "Type:rowId". A malformed one is the caller's error, not ours;
// so is a row id past int4, which would fail in the database.
export function decodeGlobalId(globalId: string): { typename: string; id: string } {
  const decoded = Buffer.from(globalId, 'base64').toString('utf8');
  const separator = decoded.indexOf(':');
  const typename = decoded.slice(0, separator);
  const id = decoded.slice(separator + 1);
  if (separator <= 0 || !/^[A-Za-z_]\w*$/.test(typename) || !/^\d{1,10}$/.test(id) || Number(id) > MAX_ROW_ID) {
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
    findUnique: (id: string, ctx: Context) => visibleRowsWhere(model, principalOf(ctx), Number(id)),
  };
}

/**
 * `node` and `nodes`: every id through the request's row loader with the selection Pothos plans for
 * its type, so the ids of one type cost one statement and the relations beneath ride on it.
 */
export function loadNodes(
  ctx: Context,
  info: GraphQLResolveInfo,
  ids: readonly ({ typename: string; id: string } | null | undefined)[],
): Promise<(object | null)[]> {
  const selections = new Map<string, Promise<PlannedQuery<ModelName>>>();
  const selectionOf = (typeName: string) => {
    let selection = selections.get(typeName);
    if (!selection) {
      selection = Promise.resolve(queryFromInfo({ context: ctx, info, typeName, awaitSelections: true }));
      selections.set(typeName, selection);
    }
    return selection;
  };
  return Promise.all(
    ids.map(async (globalId) => {
      const type = globalId && info.schema.getType(globalId.typename);
      // Only a node type is found by id; any other type name (a variant of a model too) names no row.
      const isNode = isObjectType(type) && type.getInterfaces().some((face) => face.name === 'Node');
      const model = isNode ? (type.extensions.pothosPrismaModel as ModelName | undefined) : undefined;
      if (!globalId || !model) return null;
      const row = await ctx.loaders.row(model, await selectionOf(globalId.typename), Number(globalId.id));
      // Node is an interface: the brand tells GraphQL which type the row is (a node type of the schema, checked above).
      if (row) brandWithType(row, globalId.typename as OutputType<SchemaTypes>);
      return row;
    }),
  );
}
