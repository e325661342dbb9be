import { keyAllows, permissions, roleAllows, type Action } from '../auth/roles.js';
import type { Principal } from '../auth/principal.js';
import { visibleOrganizations, type ModelName } from '../auth/tenancy.js';
import { db } from '../db/index.js';
import { sentAndLost } from '../db/unavailable.js';
import { parameter, sql, statementOf, type SQL } from '../read-plans/sql.js';
import type { RequestStep } from '../live/log.js';
import { modelCatalog } from './model-catalog.js';

/*
 * The one-statement writes (a row's update, a batch of moves) are built from pg-sql2 fragments, as
 * the read planner's statements are: identifiers quoted and values numbered by the builder alone,
 * and answers read by the names the statement gives its columns.
 */

/** A model's table, quoted. */
export const tableOf = (model: ModelName): SQL => sql.identifier(modelCatalog().get(model)!.table);

/** The column name of a model's field. */
export const columnNameOf = (model: ModelName, field: string) =>
  modelCatalog().get(model)!.columns.get(field)?.name ?? field;

/** `alias.column` of a model's field, quoted. */
export const columnOf = (model: ModelName, field: string, alias: SQL): SQL =>
  sql`${alias}.${sql.identifier(columnNameOf(model, field))}`;

/** The organizations in which the caller's key and role allow `action`; undefined: all (a platform admin). */
export function allowedOrganizations(principal: Principal, action: Action): number[] | undefined {
  if (!keyAllows(principal.permission, permissions[action].key)) return [];
  if (principal.isAdmin) return undefined;
  return [...principal.roles].filter(([, role]) => roleAllows(role, action)).map(([organization]) => organization);
}

/** What every write statement takes of its caller: who writes, when, how signed in, and where it may see and change rows. */
export interface Caller {
  user: SQL;
  at: SQL;
  credential: SQL;
  /** The organizations whose rows the caller may see, and those it may change by `action` (NULL: all). */
  visible: SQL;
  allowed: SQL;
}

/** A value of the request in a statement built once per shape (`shapedStatement`): filled in at each request. */
export class RequestValue {
  constructor(readonly name: string) {}
}

/** The caller's part of a statement built once per shape, and the values that fill it (`callerInputs`). */
export const callerSlots: Caller = {
  user: parameter(new RequestValue('user'), 'int'),
  at: parameter(new RequestValue('at'), 'timestamp(3)'),
  credential: parameter(new RequestValue('credential'), 'credential_kind'),
  visible: parameter(new RequestValue('visible'), 'int[]'),
  allowed: parameter(new RequestValue('allowed'), 'int[]'),
};

/** A keyed request's step in a statement built once per shape; its values are the step's own (`RequestStep`). */
export const stepSlots = {
  requestId: new RequestValue('requestId'),
  step: new RequestValue('step'),
  attempt: new RequestValue('attempt'),
} as unknown as RequestStep;

export const callerInputs = (principal: Principal, action: Action): Record<keyof Caller, unknown> => ({
  user: principal.userId,
  at: new Date().toISOString(),
  credential: principal.credential,
  visible: visibleOrganizations(principal) ?? null,
  allowed: allowedOrganizations(principal, action) ?? null,
});

/** Shapes kept; a shape is a model and the columns a write sets, so few are ever made. */
const MAX_SHAPES = 1_000;
const shapes = new Map<string, { text: string; values: unknown[] }>();

/**
 * A write statement built and compiled once per shape (`key`), with the request's values where
 * `build` put a RequestValue: building it with pg-sql2 at every request was a tenth of a rename's CPU.
 */
export function shapedStatement(
  key: string,
  build: () => SQL,
  inputs: Record<string, unknown>,
): { text: string; values: unknown[] } {
  let shape = shapes.get(key);
  if (!shape) {
    if (shapes.size >= MAX_SHAPES) shapes.delete(shapes.keys().next().value!);
    shapes.set(key, (shape = statementOf(build())));
  }
  const values = shape.values.map((value) =>
    value instanceof RequestValue ? writtenValue(inputs[value.name]) : value,
  );
  return { text: shape.text, values };
}

/** `organization` is one of `organizations` (NULL: any). */
export const within = (organizations: SQL, organization: SQL): SQL =>
  sql`(${organizations} IS NULL OR ${organization} = ANY(${organizations}))`;

/**
 * Runs a write statement (its own transaction) whose answer is one row (or none) with the columns
 * `names`, in that order, and answers that row by name. A connection lost once it was sent is OUTCOME_UNKNOWN.
 */
export async function answerOf<N extends string>(
  statement: SQL | { text: string; values: unknown[] },
  names: readonly N[],
): Promise<Record<N, unknown> | undefined> {
  const { text, values } = 'text' in statement ? statement : statementOf(statement);
  const [row] = await db()
    .queryRows(text, values)
    .catch((error: unknown) => {
      throw sentAndLost(error);
    });
  return row && (Object.fromEntries(names.map((name, i) => [name, row[i]])) as Record<N, unknown>);
}

/** The select list of an answer: each fragment as the name it is read by. */
export const answerColumns = (columns: [name: string, value: SQL][]): SQL =>
  sql.join(
    columns.map(([name, value]) => sql`${value} AS ${sql.identifier(name)}`),
    ', ',
  );

// A written value in a parameter: a Date as its ISO text (stored as UTC, as Prisma does).
const writtenValue = (value: unknown) => (value instanceof Date ? value.toISOString() : value);

export const written = (value: unknown): SQL => sql.value(writtenValue(value) as Parameters<typeof sql.value>[0]);

/**
 * The version check of a write of the row `read` reads and `write` writes, given an expected version
 * (none: no check). `lock` makes the read wait for a concurrent write of the row and read it as that
 * write left it; `stale` is then the row now, as JSON, where its version is another (the refusal
 * answers it from the same statement); `holds` is the write's own condition.
 */
export function versionCheck(expected: number | null | undefined, read: SQL, write: SQL) {
  if (expected == null) return undefined;
  const value = parameter(expected, 'int');
  return {
    lock: sql` FOR UPDATE OF ${read}`,
    stale: sql`CASE WHEN ${read}.version <> ${value} THEN row_to_json(${read})::text END`,
    holds: sql` AND ${write}.version = ${value}`,
  };
}
