import { permissions, keyAllows, roleAllows, type Action } from '../auth/roles.js';
import { organizationOf, organizationSelect, tenancyWhere, type OrganizationScopedModel } from '../auth/tenancy.js';
import { delegateOf, type Client } from '../db/delegate.js';
import { sentAndLost } from '../db/unavailable.js';
import { prisma, type Prisma } from '../db/index.js';
import type { ActionMethod } from '../generated/prisma/enums.js';
import { principalOf, type Context } from './context.js';
import type { EventKind } from '../live/events.js';
import { logChanges, type RequestStep } from '../live/log.js';
import { conflict, credentialNames, forbidden, idempotencyKeyInUse, notFound } from './errors.js';

export type Transaction = Parameters<Parameters<Prisma['$transaction']>[0]>[0];

/** Refuses the change unless the caller's key and role in the organization allow the action (platform admins act as owners). */
export function authorize(ctx: Context, action: Action, organizationId: number): void {
  const principal = principalOf(ctx);
  const { what, key } = permissions[action];
  if (!keyAllows(principal.permission, key))
    throw forbidden(`A ${principal.permission} ${credentialNames[principal.credential]} may not ${what}`);
  const role = principal.roles.get(organizationId);
  if (!principal.isAdmin && !roleAllows(role, action))
    throw forbidden(`The ${role ?? 'non-member'} role may not ${what}`);
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
  client: Client = prisma(),
): Promise<{ id: number; organizationId: number }> {
  const row = await delegateOf(client, model).findFirst({
    where: { id: rowId, AND: [tenancyWhere(model, principalOf(ctx))] },
    select: { id: true, ...organizationSelect(model) },
  });
  if (!row) throw notFound(what);
  return { id: rowId, organizationId: organizationOf(model, row) };
}

export interface Change {
  method: ActionMethod;
  entityType: string;
  /** The organization the change belongs to; a function of the written row when the change creates that organization. */
  organizationId: number | null | ((row: { id: number }) => number | null);
  /** What subscribers are told, when more than the method says (a reorder, an archiving). */
  event?: EventKind;
  /** The work answers a list of rows (not one): a step a retry skips answers its rows as a list too. */
  many?: true;
  /** The answer holds a secret the change made, shown once (a key's, an invite's token): a step a retry skips cannot answer it. */
  secret?: true;
}

/**
 * This change's step in a keyed request (undefined without a key), and the ids of the rows it wrote
 * when an earlier attempt committed it.
 */
export function nextStep(ctx: Context): { step: RequestStep; done: number[] | undefined } | undefined {
  const keyed = ctx.keyed;
  if (!keyed) return undefined;
  const step = keyed.step++;
  return { step: { requestId: keyed.id, step, attempt: keyed.attempt }, done: keyed.committed.get(step) };
}

/** The refusal of a step whose attempt no longer holds its key: a retry took it over and makes the change. */
export const stepFenced = () => idempotencyKeyInUse(1);

/**
 * Runs a change in one transaction with its change log entries (one per row the work returns), so
 * the log never tells of a change that did not happen, nor misses one that did; subscribers read
 * them once it commits. A connection lost during the COMMIT is OUTCOME_UNKNOWN. In a keyed request,
 * a step an earlier attempt committed is not made again: its rows (their ids) are read from the log.
 */
export async function recordChange<T extends { id: number } | { id: number }[]>(
  ctx: Context,
  change: Change,
  work: (tx: Transaction) => Promise<T>,
): Promise<T> {
  const keyed = nextStep(ctx);
  if (keyed && change.secret) ctx.keyed!.secret = true;
  if (keyed?.done) {
    if (change.secret)
      throw conflict(
        'An earlier attempt of this request (its Idempotency-Key) made this change, and the secret it answered is shown only once; it cannot be answered again',
      );
    const rows = keyed.done.map((id) => ({ id }));
    // Only the ids are known of a step made before: what else the work answered is not.
    return (change.many ? rows : rows[0]) as T;
  }
  let committing = false;
  try {
    return await prisma().$transaction(async (tx) => {
      const written = await work(tx);
      const rows: { id: number }[] = Array.isArray(written) ? written : [written];
      const organizationOf = (row: { id: number }) =>
        typeof change.organizationId === 'function' ? change.organizationId(row) : change.organizationId;
      // Rows keep what the work read with them (a deleted row's board), for the subscribers.
      const logged = rows.map((row) => ({ ...row, organizationId: organizationOf(row) }));
      if (!(await logChanges(tx, principalOf(ctx), change, logged, keyed?.step))) throw stepFenced();
      committing = true;
      return written;
    });
  } catch (error) {
    throw committing ? sentAndLost(error) : error;
  }
}
