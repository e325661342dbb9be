import { permissions, keyAllows, roleAllows, type Action } from '../auth/roles.js';
import { organizationOf, organizationSelect, tenancyWhere, type OrganizationScopedModel } from '../auth/tenancy.js';
import { delegateOf } from '../db/delegate.js';
import { prisma, type Prisma } from '../db/index.js';
import type { ActionMethod } from '../generated/prisma/enums.js';
import type { Context } from './context.js';
import { forbidden, notFound } from './errors.js';

export type Transaction = Parameters<Parameters<Prisma['$transaction']>[0]>[0];

/** Refuses the change unless the caller's key and role in the organization allow the action (platform admins act as owners). */
export function authorize(ctx: Context, action: Action, organizationId: number): void {
  const { principal } = ctx;
  const { what, key } = permissions[action];
  if (!keyAllows(principal.permission, key)) throw forbidden(`A ${principal.permission} API key may not ${what}`);
  const role = principal.roles.get(organizationId);
  if (!principal.isAdmin && !roleAllows(role, action)) throw forbidden(`The ${role ?? 'non-member'} role may not ${what}`);
}

/**
 * Loads the row a change is about, with its organization, as the caller may see it: a row of
 * another organization is reported exactly like one that does not exist.
 */
export async function findForChange(
  ctx: Context,
  model: OrganizationScopedModel,
  rowId: number,
  what: string,
  client: object = prisma(),
): Promise<{ id: number; organizationId: number }> {
  const row = await delegateOf(client, model).findFirst({
    where: { AND: [{ id: rowId }, tenancyWhere(model, ctx.principal)] },
    select: { id: true, ...organizationSelect(model) },
  });
  if (!row) throw notFound(what);
  return { id: rowId, organizationId: organizationOf(model, row) };
}

export interface Change {
  method: ActionMethod;
  entityType: string;
  organizationId: number | null;
}

/**
 * Runs a change in one transaction with its action log entry, so the log never tells of a change
 * that did not happen, nor misses one that did.
 */
export function recordChange<T extends { id: number }>(ctx: Context, change: Change, work: (tx: Transaction) => Promise<T>): Promise<T> {
  return prisma().$transaction(async (tx) => {
    const row = await work(tx);
    await tx.userActionLog.create({
      data: { userId: ctx.principal.userId, organizationId: change.organizationId, method: change.method, entityType: change.entityType, entityId: row.id },
    });
    return row;
  });
}
