import SchemaBuilder from '@pothos/core';
import PrismaPlugin from '@pothos/plugin-prisma';
import RelayPlugin from '@pothos/plugin-relay';
import ScopeAuthPlugin from '@pothos/plugin-scope-auth';
import { keyAllows } from '../auth/roles.js';
import { isProduction } from '../config.js';
import { prisma } from '../db/index.js';
import type PrismaTypes from '../generated/pothos-types.js';
import { getDatamodel } from '../generated/pothos-types.js';
import type { Context } from './context.js';
import { badUserInput, credentialNames, forbidden } from './errors.js';
import { decodeGlobalId, loadNodes } from './global-id.js';
import { readPlan } from '../read-plans/extensions.js';

export const builder = new SchemaBuilder<{
  Context: Context;
  AuthScopes: { writeKey: boolean; platformAdmin: boolean };
  PrismaTypes: PrismaTypes;
  DefaultFieldNullability: false;
  DefaultEdgesNullability: false;
  DefaultNodeNullability: false;
  Scalars: {
    DateTime: { Input: Date; Output: Date };
    ID: { Input: string; Output: string | number };
    Upload: { Input: File; Output: never };
    JSON: { Input: unknown; Output: unknown };
  };
}>({
  // Scope checks first: a read-only key is refused before its arguments are even decoded.
  plugins: [ScopeAuthPlugin, RelayPlugin, PrismaPlugin],
  defaultFieldNullability: false,
  prisma: {
    client: () => prisma(),
    dmmf: getDatamodel(),
    exposeDescriptions: true,
    filterConnectionTotalCount: true,
    // A resolver that forgets to spread the planned query would silently cost a statement per row.
    onUnusedQuery: isProduction() ? null : 'error',
  },
  scopeAuth: {
    authScopes: (ctx) => ({
      writeKey: !!ctx.principal && keyAllows(ctx.principal.permission, 'READ_WRITE'),
      platformAdmin: !!ctx.principal?.isAdmin,
    }),
    unauthorizedError: (_parent, ctx, _info, result) =>
      forbidden(
        ctx.principal?.permission === 'READ_ONLY'
          ? `This ${credentialNames[ctx.principal.credential]} is read-only`
          : result.message,
      ),
  },
  relay: {
    clientMutationId: 'omit',
    cursorType: 'String',
    edgesFieldOptions: { nullable: false },
    nodeFieldOptions: { nullable: false },
    // `nodes` beside `edges`, as PostGraphile and Hasura offer: a client that needs no cursors asks less.
    nodesOnConnection: true,
    decodeGlobalID: decodeGlobalId,
    nodeQueryOptions: {
      extensions: readPlan({ nodes: 'one' }),
      resolve: (_root, args, ctx, info) => loadNodes(ctx, info, [args.id]).then(([node]) => node),
    },
    nodesQueryOptions: {
      extensions: readPlan({ nodes: 'list' }),
      resolve: (_root, args, ctx, info) => loadNodes(ctx, info, args.ids),
    },
  },
});

/** The builder's type parameters, for helpers that build fields of any type. */
export type BuilderTypes = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer Types> ? Types : never;

builder.queryType({});
// A read-only key can never change anything, whatever its user's role.
builder.mutationType({ authScopes: { writeKey: true } });

builder.scalarType('DateTime', {
  description: 'An ISO 8601 timestamp in UTC, e.g. 2026-01-05T09:00:00.000Z.',
  serialize: (value) => value.toISOString(),
  parseValue: (value) => {
    const date = typeof value === 'string' ? new Date(value) : undefined;
    // A GraphQLError, so the caller reads why instead of a masked "Unexpected error.".
    if (!date || Number.isNaN(date.getTime())) throw badUserInput('DateTime must be an ISO 8601 string', 'DateTime');
    return date;
  },
});

/** The field builder of an input type's `fields`. */
export type InputFields = Parameters<Parameters<typeof builder.inputType>[1]['fields']>[0];
