import type { ModelName } from '../auth/tenancy.js';
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
export const expectedVersionField = (t: InputFields, description?: string) =>
  t.int({
    description:
      description ??
      'Change the row only if it is at this version (its `version` as last read); otherwise nothing changes and the answer is CONFLICT with the current version and row.',
  });

/** What a write of one row by Prisma is given: the row by id, at the expected version when there is one. */
export type VersionedWhere = { id: number; version?: number };

// A conflict answers the row to its caller, who may change it but never reads these: secrets kept
// sealed or hashed (shown once, at their making), and a reader's own place in the change log.
const unshownColumns: Partial<Record<ModelName, string[]>> = {
  WebhookEndpoint: ['secret', 'previousSecret', 'cursor'],
  UserInvite: ['tokenHash'],
};

/**
 * The refusal of a write that found the row at another version than expected: CONFLICT with the row
 * as it is now, less the columns its caller never reads; null when there is no such row any more
 * (`currentVersion` and `current` null).
 */
export function staleConflict(model: ModelName, label: string, current: { version: number } | null) {
  const shown: ({ version: number } & Record<string, unknown>) | null = current && { ...current };
  for (const column of unshownColumns[model] ?? []) delete shown?.[column];
  return versionConflict(label, shown);
}

/** CONFLICT with the row as it is now (read here, on this path only), NOT_FOUND if it is gone. */
async function refuseStale(client: Client, model: ModelName, rowId: number, label: string): Promise<never> {
  const current = await delegateOf(client, model)
    .findFirstOrThrow({ where: { id: rowId } })
    .catch((missing) => {
      throw matchedNoRow(missing) ? notFound(label) : missing;
    });
  // Only the inputs of versioned models take an expected version.
  throw staleConflict(model, label, current as typeof current & { version: number });
}

/** Runs a Prisma write on the condition `expected` (none when null); one that matches no row then, `refuse` answers. */
export async function writeAtVersion<T>(
  expected: number | null | undefined,
  write: (version: { version?: number }) => Promise<T>,
  refuse: () => Promise<never>,
): Promise<T> {
  try {
    return await write(expected == null ? {} : { version: expected });
  } catch (error) {
    if (expected == null || !matchedNoRow(error)) throw error;
    return refuse();
  }
}

/**
 * Runs a Prisma write of one row (inside a transaction) where the row is at `expected` (any version
 * when null): the check is the write's own condition, so no change can slip between a read and it.
 */
export function atExpectedVersion<T>(
  tx: Client,
  model: ModelName,
  rowId: number,
  expected: number | null | undefined,
  label: string,
  write: (where: VersionedWhere) => Promise<T>,
): Promise<T> {
  return writeAtVersion(
    expected,
    (version) => write({ id: rowId, ...version }),
    () => refuseStale(tx, model, rowId, label),
  );
}
