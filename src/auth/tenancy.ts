import { isDeepStrictEqual } from 'node:util';
import type { Select, Where } from '../db/delegate.js';
import { getDatamodel } from '../generated/pothos-types.js';
import type PrismaTypes from '../generated/pothos-types.js';
import type { Principal } from './principal.js';
import { roleAllows, type Action } from './roles.js';

/**
 * The models of the graph; file chunks are reached only by their unguessable file name
 * (src/files/db-store.ts), rate-limit buckets only by the limiter (src/http/rate-limit/), read
 * fences only by the replicas' routing (src/db/read-fence.ts), the change log's state only by its
 * readers and retention (src/live/), identities only by the sign-in (src/auth/identities.ts)
 * and the command line, webhook deliveries through their endpoint (src/schema/webhooks.ts), and
 * idempotency keys only by their requests (src/http/idempotency.ts).
 */
export type ModelName = Exclude<
  keyof PrismaTypes & string,
  | 'FileChunk'
  | 'RateLimitBucket'
  | 'ReadFence'
  | 'ChangeLogState'
  | 'UserIdentity'
  | 'WebhookDelivery'
  | 'IdempotencyKey'
>;

/**
 * The relation path from each model to the organization it belongs to: every row belongs to one,
 * directly or through its parent. Users and API keys are scoped by person instead (below).
 */
const organizationPaths: Record<Exclude<ModelName, 'Rate' | 'User' | 'ApiKey'>, string[]> = {
  Organization: ['id'],
  UserOrganization: ['organizationId'],
  UserInvite: ['organizationId'],
  UserActionLog: ['organizationId'],
  File: ['organizationId'],
  Whiteboard: ['organizationId'],
  DataStream: ['whiteboard', 'organizationId'],
  DataStreamConnection: ['dataStream', 'whiteboard', 'organizationId'],
  Slide: ['dataStream', 'whiteboard', 'organizationId'],
  WhiteboardObject: ['whiteboard', 'organizationId'],
  WhiteboardObjectInstance: ['object', 'whiteboard', 'organizationId'],
  WhiteboardObjectAttribute: ['object', 'whiteboard', 'organizationId'],
  WhiteboardObjectConnection: ['whiteboard', 'organizationId'],
  WhiteboardObjectRelation: ['parentObject', 'whiteboard', 'organizationId'],
  WhiteboardHighlightGroup: ['whiteboard', 'organizationId'],
  WhiteboardHighlight: ['whiteboard', 'organizationId'],
  ObjectRepositoryEntry: ['organizationId'],
  Library: ['organizationId'],
  ClassConf: ['library', 'organizationId'],
  ClassConfAttribute: ['classConf', 'library', 'organizationId'],
  ClassTexture: ['library', 'organizationId'],
  WebhookEndpoint: ['organizationId'],
};

/**
 * Models that only some roles of an organization may read, by the action they take: a webhook's URL
 * may carry its receiver's credential, so only those who manage webhooks see endpoints.
 */
const readActions: Partial<Record<ModelName, Action>> = { WebhookEndpoint: 'manageWebhooks' };

export type OrganizationScopedModel = keyof typeof organizationPaths;

/** The relation path from a model to its organization id, e.g. `['dataStream', 'whiteboard', 'organizationId']`. */
export function organizationPath(model: OrganizationScopedModel): readonly string[] {
  return organizationPaths[model];
}

const nest = (path: string[], leaf: unknown): Record<string, unknown> =>
  path.reduceRight<Record<string, unknown>>((inner, key) => ({ [key]: inner }), leaf as Record<string, unknown>);

/** A Prisma `select` reaching a row's organization id. */
export function organizationSelect<M extends OrganizationScopedModel>(model: M): Select<M> {
  const path = organizationPaths[model];
  // Unlike a `where`, a `select` nests each relation's fields under `select`. Prisma's types cannot
  // follow a path given as data; the path table names each model's relations (every write test walks them).
  return path.slice(0, -1).reduceRight<object>((inner, key) => ({ [key]: { select: inner } }), {
    [path[path.length - 1]]: true,
  }) as Select<M>;
}

/** Reads the organization id out of a row loaded with `organizationSelect`. */
export function organizationOf(model: OrganizationScopedModel, row: object): number {
  return organizationPaths[model].reduce<unknown>(
    (value, key) => (value as Record<string, unknown>)[key],
    row,
  ) as number;
}

/** The organizations whose rows (of `model`, when given) the caller may see; undefined for a platform admin, who sees all. */
export function visibleOrganizations(principal: Principal, model?: ModelName): number[] | undefined {
  if (principal.isAdmin) return undefined;
  const action = model && readActions[model];
  if (!action) return [...principal.roles.keys()];
  return [...principal.roles].filter(([, role]) => roleAllows(role, action)).map(([id]) => id);
}

/** An organization's row id as the caller may see it: null for an organization of which they are not a member. */
export function visibleOrganizationId(principal: Principal, id: number | null): number | null {
  const organizations = visibleOrganizations(principal);
  return id !== null && (!organizations || organizations.includes(id)) ? id : null;
}

function tenancyCondition(model: ModelName, principal: Principal): Record<string, unknown> {
  // API keys stay private to their owner, even for a platform admin.
  if (model === 'ApiKey') return { userId: principal.userId } satisfies Where<'ApiKey'>;
  const organizations = visibleOrganizations(principal, model);
  if (model === 'Rate' || !organizations) return {};
  const inOrganizations = { in: organizations };
  if (model === 'User')
    return {
      OR: [{ id: principal.userId }, { memberships: { some: { organizationId: inOrganizations } } }],
    } satisfies Where<'User'>;
  return nest(organizationPaths[model], inOrganizations);
}

/** A Prisma `where` limiting a model to the caller's organizations (empty for a platform admin). */
export function tenancyWhere<M extends ModelName>(model: M, principal: Principal): Where<M> {
  // Prisma's types cannot follow the path table, which names each model's relations (the isolation tests walk every model).
  return tenancyCondition(model, principal) as Where<M>;
}

/** A Prisma `where` for rows by id (one, or `{ in: [...] }`) that the caller may see: a row of another organization is no row at all. */
export function visibleRowsWhere<M extends ModelName, Id extends number | { in: number[] }>(
  model: M,
  principal: Principal,
  id: Id,
): { id: Id; AND: Where<M>[] } {
  return { id, AND: [tenancyWhere(model, principal)] };
}

const models = getDatamodel().datamodel.models;

const isOrganizationScoped = (model: ModelName): model is OrganizationScopedModel => model in organizationPaths;

/** The model a relation of `model` reaches (Prisma's datamodel). */
export function relationTarget(model: ModelName, relation: string): ModelName {
  const field = models[model].fields.find((candidate) => candidate.name === relation);
  if (field?.kind !== 'object') throw new Error(`${model}.${relation} is not a relation`);
  return field.type as ModelName;
}

/**
 * Whether the ownership paths prove that the rows `relation` reaches from a row of `model` belong to
 * that row's organization: the relation is the first hop of one side's path to the other's
 * organization (a stream's board, a board's streams), or one side holds the organization's id and
 * the other is that organization (a board's organization, an organization's boards). Anything else
 * (a user, an author, a file or a class referenced from another row) may leave the organization.
 */
export function staysInOrganization(model: ModelName, relation: string): boolean {
  const field = models[model].fields.find((candidate) => candidate.name === relation)!;
  const target = relationTarget(model, relation);
  if (!isOrganizationScoped(model) || !isOrganizationScoped(target)) return false;
  const [from, to] = [organizationPaths[model], organizationPaths[target]];
  const same = (a: readonly string[], b: readonly string[]) => isDeepStrictEqual(a, b);
  const foreignKey = field.relationFromFields?.[0];
  if (foreignKey) return same(from, [relation, ...to]) || (same(from, [foreignKey]) && same(to, ['id']));
  const back = models[target].fields.find((other) => other.relationName === field.relationName && other !== field)!;
  return same(to, [back.name, ...from]) || (same(to, [back.relationFromFields![0]]) && same(from, ['id']));
}

/**
 * The condition on the rows `relation` reaches from a row of `model` the caller may see: none where
 * the ownership paths prove they stay in that row's organization, else the target's own tenancy.
 * The one rule of every join, for the read planner and the schema's relations alike.
 */
export function relationTenancy(
  model: ModelName,
  relation: string,
  principal: Principal,
): Record<string, unknown> | undefined {
  // Rows that fewer roles may read than the parent's (an organization's webhooks) keep their own tenancy.
  const narrower = readActions[relationTarget(model, relation)];
  if ((!narrower || narrower === readActions[model]) && staysInOrganization(model, relation)) return undefined;
  const where = tenancyCondition(relationTarget(model, relation), principal);
  return Object.keys(where).length ? where : undefined;
}
