import { permissions, keyAllows, roleAllows, type Action } from '../auth/roles.js';
import { prisma, type Prisma } from '../db/index.js';
import type { ActionMethod } from '../generated/prisma/enums.js';
import type { Context } from './context.js';
import { forbidden } from './errors.js';

export type Transaction = Parameters<Parameters<Prisma['$transaction']>[0]>[0];

/** Refuses the change unless the caller's key and role in the organization allow the action (platform admins act as owners). */
export function authorize(ctx: Context, action: Action, organizationId: number): void {
  const { principal } = ctx;
  const { what, key } = permissions[action];
  if (!keyAllows(principal.permission, key)) throw forbidden(`A ${principal.permission} API key may not ${what}`);
  const role = principal.roles.get(organizationId);
  if (!principal.isAdmin && !roleAllows(role, action)) throw forbidden(`The ${role ?? 'non-member'} role may not ${what}`);
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
