import type { GraphQLSchema } from 'graphql';
import {
  organizationOf,
  organizationSelect,
  type ModelName,
  type OrganizationScopedModel,
} from '../../src/auth/tenancy.js';
import { delegateOf } from '../../src/db/delegate.js';
import type { Prisma } from '../../src/db/index.js';
import { demo } from '../../src/db/seed/index.js';
import { demoKeyHolders, type DemoKeys } from '../../src/db/seed/keys.js';
import { buildCatalog } from '../../src/schema/model-catalog.js';
import { webhookModels } from './webhooks.js';

/** A caller of the demo data: the key's user, their organizations, and whether they see every one. */
export interface Caller {
  name: keyof DemoKeys;
  key: string;
  userId: number;
  organizations: Set<number>;
  isAdmin: boolean;
}

/** Every demo key's caller: each role of each organization, a user of both, one who left, a platform admin. */
export async function demoCallers(prisma: Prisma, keys: DemoKeys): Promise<Caller[]> {
  return Promise.all(
    (Object.keys(demoKeyHolders) as (keyof DemoKeys)[]).map(async (name) => {
      const user = await prisma.user.findUniqueOrThrow({
        where: { email: demo.users[name].email },
        include: { memberships: true },
      });
      return {
        name,
        key: keys[name],
        userId: user.id,
        organizations: new Set(user.memberships.map((membership) => membership.organizationId)),
        isAdmin: user.isAdmin,
      };
    }),
  );
}

/** Every model of the graph with rows: the demo data's, and the webhook endpoints a suite adds (addWebhookEndpoints). */
export const graphModels = [
  ...Object.keys(demo.counts).map((key) => key[0].toUpperCase() + key.slice(1)),
  ...webhookModels,
] as ModelName[];
const models = graphModels;
const isScoped = (model: ModelName): model is OrganizationScopedModel => !['Rate', 'User', 'ApiKey'].includes(model);

/** Which organization every row belongs to, and who may see users and keys: what a caller may be shown. */
export class Visibility {
  private constructor(
    private readonly organizationOfRow: Map<string, number | null>,
    private readonly membershipsOf: Map<number, Set<number>>,
    private readonly ownerOfKey: Map<number, number>,
  ) {}

  static async of(prisma: Prisma): Promise<Visibility> {
    const organizationOfRow = new Map<string, number | null>();
    for (const model of models.filter(isScoped)) {
      const rows = await (delegateOf(prisma, model).findMany as (args: object) => Promise<object[]>)({
        where: {},
        select: { id: true, ...organizationSelect(model) },
      });
      for (const row of rows)
        organizationOfRow.set(`${model}:${(row as { id: number }).id}`, organizationOf(model, row));
    }
    const membershipsOf = new Map<number, Set<number>>();
    for (const { userId, organizationId } of await prisma.userOrganization.findMany()) {
      membershipsOf.set(userId, (membershipsOf.get(userId) ?? new Set()).add(organizationId));
    }
    const ownerOfKey = new Map((await prisma.apiKey.findMany()).map((key) => [key.id, key.userId]));
    return new Visibility(organizationOfRow, membershipsOf, ownerOfKey);
  }

  /** Whether `caller` may see the row `id` of `model`; undefined when the row is unknown. */
  mayUserSee(caller: Caller, model: ModelName, id: number): boolean {
    if (model === 'Rate') return true;
    if (model === 'ApiKey') return this.ownerOfKey.get(id) === caller.userId;
    if (caller.isAdmin) return true;
    if (model === 'User')
      return (
        id === caller.userId || [...(this.membershipsOf.get(id) ?? [])].some((org) => caller.organizations.has(org))
      );
    const organization = this.organizationOfRow.get(`${model}:${id}`);
    return organization != null && caller.organizations.has(organization);
  }

  mayUserSeeOrganization(caller: Caller, id: number): boolean {
    return caller.isAdmin || caller.organizations.has(id);
  }

  /** Every row id of `model`, of every organization. */
  async ids(prisma: Prisma, model: ModelName): Promise<number[]> {
    const rows = await (delegateOf(prisma, model).findMany as (args: object) => Promise<{ id: number }[]>)({
      where: {},
      select: { id: true },
      orderBy: { id: 'asc' },
    });
    return rows.map((row) => row.id);
  }

  /** The rows of `model` in organization `organization`, in id order. */
  rowsIn(model: OrganizationScopedModel, organization: number): number[] {
    return [...this.organizationOfRow]
      .filter(([key, org]) => key.startsWith(`${model}:`) && org === organization)
      .map(([key]) => Number(key.slice(model.length + 1)))
      .sort((a, b) => a - b);
  }
}

/**
 * References from one organization's rows to another's, which the write path forbids and a legacy
 * database may hold: each makes a relation that the ownership paths do not prove reach rows of the
 * caller's organizations, so a join without its tenancy shows them.
 */
const crossReferences: [model: OrganizationScopedModel, column: string, target: OrganizationScopedModel][] = [
  ['WhiteboardObject', 'classConfId', 'ClassConf'],
  ['ClassConf', 'textureId', 'ClassTexture'],
  ['ClassTexture', 'lightThemeImageId', 'File'],
  ['Whiteboard', 'miniDrawingId', 'File'],
  ['DataStreamConnection', 'objectConnectionId', 'WhiteboardObjectConnection'],
  ['WhiteboardHighlight', 'classConfId', 'ClassConf'],
  ['WhiteboardHighlight', 'attributeId', 'ClassConfAttribute'],
  ['WhiteboardHighlight', 'groupId', 'WhiteboardHighlightGroup'],
  ['WhiteboardObjectAttribute', 'attributeId', 'ClassConfAttribute'],
  ['WhiteboardObjectRelation', 'childObjectId', 'WhiteboardObject'],
  ['WhiteboardObjectConnection', 'targetObjectId', 'WhiteboardObject'],
  ['ObjectRepositoryEntry', 'objectId', 'WhiteboardObject'],
];

/** Points one row of the second organization at a row of the first for every cross reference above. */
export async function crossOrganizationReferences(prisma: Prisma): Promise<void> {
  const catalog = buildCatalog(prisma);
  const visibility = await Visibility.of(prisma);
  const [first, second] = (await prisma.organization.findMany({ orderBy: { id: 'asc' } })).map((org) => org.id);
  for (const [model, column, target] of crossReferences) {
    const table = catalog.get(model)!;
    const [row] = visibility.rowsIn(model, second);
    const [other] = visibility.rowsIn(target, first);
    if (row === undefined || other === undefined) throw new Error(`no ${model} or ${target} to cross-reference`);
    await prisma.$executeRawUnsafe(
      `UPDATE "${table.table}" SET "${table.columns.get(column)!.name}" = $1 WHERE id = $2`,
      other,
      row,
    );
  }
}

/** The model of a GraphQL type, as Pothos records it. */
export function modelOfType(schema: GraphQLSchema, typeName: string): ModelName | undefined {
  return (schema.getType(typeName)?.extensions as { pothosPrismaModel?: ModelName } | undefined)?.pothosPrismaModel;
}

/**
 * Every row in an answer that `caller` may not see: objects carrying `__typename` and a global `id`,
 * and a user's `organizationId` naming an organization the caller is not in.
 */
export function foreignRows(schema: GraphQLSchema, visibility: Visibility, caller: Caller, answer: unknown): string[] {
  const found: string[] = [];
  const walk = (value: unknown, path: string): void => {
    if (Array.isArray(value)) {
      for (const [i, item] of value.entries()) walk(item, `${path}[${i}]`);
      return;
    }
    if (!value || typeof value !== 'object') return;
    const row = value as Record<string, unknown>;
    if (typeof row.__typename === 'string' && typeof row.id === 'string') {
      const [type, id] = Buffer.from(row.id, 'base64').toString().split(':');
      const model = modelOfType(schema, type);
      if (model && !visibility.mayUserSee(caller, model, Number(id))) found.push(`${path}: ${type} ${id}`);
      if (
        row.__typename === 'User' &&
        typeof row.organizationId === 'number' &&
        !visibility.mayUserSeeOrganization(caller, row.organizationId)
      )
        found.push(`${path}.organizationId: ${row.organizationId}`);
    }
    for (const [key, inner] of Object.entries(row)) walk(inner, `${path}.${key}`);
  };
  walk(answer, '');
  return found;
}
