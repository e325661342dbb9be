import type { OrganizationScopedModel } from '../auth/tenancy.js';
import { delegateOf, matchedNoRow, type Client } from '../db/delegate.js';
import type { InputFields } from './builder.js';
import { notFound, versionConflict } from './errors.js';

/*
 * Row versions (issue 41): the database raises a row's `version` on every update (the trigger
 * raise_version), and a write given `expectedVersion` changes the row only at that version.
 */

/** The `version` field of a type whose rows clients change. */
export const versionOptions = {
  description:
    'Raised by every change of the row. Give it as expectedVersion (on REST, its ETag as If-Match) to change the row only if no one changed it since.',
};

/** The optional `expectedVersion` of an update or delete input. */
export const expectedVersionField = (t: InputFields) =>
  t.int({
    description:
      'Change the row only if it is at this version (its `version` as last read); otherwise nothing changes and the answer is CONFLICT with the current version and row.',
  });

/** What a write of one row by Prisma is given: the row by id, at the expected version when there is one. */
export type VersionedWhere = { id: number; version?: number };

const versionedWhere = (rowId: number, expected: number | null | undefined): VersionedWhere =>
  expected == null ? { id: rowId } : { id: rowId, version: expected };

/**
 * The refusal of a write that found the row at another version than expected: CONFLICT with the
 * row as it is now (read here, on this path only), NOT_FOUND if it is gone.
 */
async function refuseStale(
  client: Client,
  model: OrganizationScopedModel,
  rowId: number,
  label: string,
): Promise<never> {
  const current = await delegateOf(client, model)
    .findFirstOrThrow({ where: { id: rowId } })
    .catch((missing) => {
      throw matchedNoRow(missing) ? notFound(label) : missing;
    });
  // Only the inputs of versioned models take an expected version.
  throw versionConflict(label, current as typeof current & { version: number });
}

/**
 * Runs a Prisma write of one row (inside a transaction) where the row is at `expected` (any version
 * when null): the check is the write's own condition, so no change can slip between a read and it.
 */
export async function atExpectedVersion<T>(
  tx: Client,
  model: OrganizationScopedModel,
  rowId: number,
  expected: number | null | undefined,
  label: string,
  write: (where: VersionedWhere) => Promise<T>,
): Promise<T> {
  try {
    return await write(versionedWhere(rowId, expected));
  } catch (error) {
    if (expected == null || !matchedNoRow(error)) throw error;
    return refuseStale(tx, model, rowId, label);
  }
}
