import { keyAllows, permissions, roleAllows, type Action } from '../auth/roles.js';
import {
  type ModelName,
  organizationPath,
  visibleOrganizations,
  type OrganizationScopedModel,
} from '../auth/tenancy.js';
import type { Principal } from '../auth/principal.js';
import type { Columns, PlannedQuery, Row } from '../db/delegate.js';
import { db } from '../db/index.js';
import { getDatamodel } from '../generated/pothos-types.js';
import type { EventKind } from '../live/events.js';
import { entriesInsertSql } from '../live/log.js';
import { type Join, modelCatalog } from './model-catalog.js';
import { authorize } from './changes.js';
import { principalOf, type Context } from './context.js';
import { notFound } from './errors.js';
import { plannedRow } from './loaders.js';

/** One row changed by id, with what the caller must be allowed and what the action log and subscribers are told. */
export interface RowUpdate<M extends OrganizationScopedModel> {
  model: M;
  rowId: number;
  /** Columns already checked (crud.ts cleanValues); none still moves updatedAt. */
  data: Columns<M>;
  /** What the role matrix must allow in the row's organization. */
  action: Action;
  /** The entity in messages ("Whiteboard not found"). */
  label: string;
  /** The GraphQL type the action log and the event name. */
  entityType: string;
  /** @default 'UPDATED' */
  event?: EventKind;
  /** Columns of `data` that name another row, which must be in the changed row's organization. */
  references?: Reference[];
}

/** A column naming a row of `model`, and the refusal when that row is not in the changed row's organization. */
export interface Reference {
  column: string;
  model: OrganizationScopedModel;
  refused: () => Error;
}

const datamodel = getDatamodel().datamodel.models;

export const tableOf = (model: ModelName) => `"${modelCatalog().get(model)!.table}"`;
const columnNameOf = (model: ModelName, field: string) => modelCatalog().get(model)!.columns.get(field)?.name ?? field;
export const columnOf = (model: ModelName, field: string) => `"${columnNameOf(model, field)}"`;

/** The organization and board of the row aliased `alias`, and the joins that reach them along its ownership path (tenancy.ts). */
function ownership(model: OrganizationScopedModel, row: string) {
  const path = organizationPath(model);
  const joins: string[] = [];
  let [alias, current]: [string, ModelName] = [row, model];
  let board = model === 'Whiteboard' ? `${row}.${columnOf(model, 'id')}` : 'NULL::int';
  for (const [i, relation] of path.slice(0, -1).entries()) {
    const join: Join = modelCatalog().get(current)!.joins.get(relation)!;
    const next = `${row}_${i + 1}`;
    joins.push(
      `JOIN ${tableOf(join.target)} ${next} ON ${next}."${join.childColumn}" = ${alias}."${join.parentColumn}"`,
    );
    if (join.target === 'Whiteboard') board = `${next}.${columnOf(join.target, 'id')}`;
    [alias, current] = [next, join.target];
  }
  return { joins, organization: `${alias}.${columnOf(current, path[path.length - 1])}`, board };
}

/** Whether parameter `$n` names a row of `model` in the organization `organization` (the changed row's). */
function referenceSql(model: OrganizationScopedModel, n: number, alias: string, organization: string): string {
  const reached = ownership(model, alias);
  const from = [`${tableOf(model)} ${alias}`, ...reached.joins].join(' ');
  return `EXISTS (SELECT FROM ${from} WHERE ${alias}.${columnOf(model, 'id')} = $${n} AND ${reached.organization} = ${organization})`;
}

// Parameters: $1 row id, $2 and $3 the organizations whose rows the caller may see and may change
// (null: all), $4 the user, $5 the time, $6 the entity type, $7 the event kind, $8 the caller's
// credential kind, $9... the columns.
function statementText(model: OrganizationScopedModel, columns: string[], references: Reference[]): string {
  const { joins, organization, board } = ownership(model, 't');
  const id = columnOf(model, 'id');
  const checks = references.map(
    (reference, i) =>
      `${referenceSql(reference.model, columns.indexOf(reference.column) + 9, `r${i}`, organization)} AS ok${i}`,
  );
  const updatedAt = datamodel[model].fields.find((field) => field.isUpdatedAt && !columns.includes(field.name));
  const assignments = [
    ...columns.map((column, i) => `${columnOf(model, column)} = $${i + 9}`),
    ...(updatedAt ? [`${columnOf(model, updatedAt.name)} = $5::timestamp(3)`] : []),
  ];
  const logged = entriesInsertSql(
    {
      userId: '$4::int',
      createdAt: '$5::timestamp(3)',
      credential: '$8::credential_kind',
      entityType: '$6::text',
      kind: '$7::text',
      entityId: 'id',
      organizationId: 'organization_id',
      whiteboardId: 'whiteboard_id',
    },
    'written',
  );
  return `WITH target AS (
  SELECT ${[`t.${id} AS id`, `${organization} AS organization_id`, `${board} AS whiteboard_id`, ...checks].join(', ')}
  FROM ${[`${tableOf(model)} t`, ...joins].join(' ')}
  WHERE t.${id} = $1 AND ($2::int[] IS NULL OR ${organization} = ANY($2::int[]))
), written AS (
  UPDATE ${tableOf(model)} AS w SET ${assignments.join(', ')}
  FROM target WHERE w.${id} = target.id AND ($3::int[] IS NULL OR target.organization_id = ANY($3::int[]))${checks.map((_, i) => ` AND target.ok${i}`).join('')}
  RETURNING target.*, row_to_json(w)::text AS row
), logged AS (
  ${logged} RETURNING 1
)
SELECT ${['target.organization_id', '(SELECT count(*) FROM logged)::int', '(SELECT row FROM written)', ...checks.map((_, i) => `target.ok${i}`)].join(', ')} FROM target`;
}

const statements = new Map<string, string>();

/** The organizations in which the caller's key and role allow `action`; undefined: all (a platform admin). */
export function allowedOrganizations(principal: Principal, action: Action): number[] | undefined {
  if (!keyAllows(principal.permission, permissions[action].key)) return [];
  if (principal.isAdmin) return undefined;
  return [...principal.roles].filter(([, role]) => roleAllows(role, action)).map(([organization]) => organization);
}

// A timestamp without time zone ignores the zone of its text: an ISO string stores the UTC time, as Prisma does.
export const parameter = (value: unknown) => (value instanceof Date ? value.toISOString() : value);

/** A written row as Prisma reads it, from its JSON object: field names for column names, DateTime as Date (stored in UTC). */
export function rowOf<M extends OrganizationScopedModel>(model: M, columns: Record<string, unknown>): Row<M> {
  const row: Record<string, unknown> = {};
  for (const field of datamodel[model].fields) {
    if (field.kind !== 'scalar' && field.kind !== 'enum') continue;
    const value = columns[columnNameOf(model, field.name)];
    row[field.name] =
      field.type === 'DateTime' && typeof value === 'string'
        ? new Date(/(Z|[+-]\d\d(:?\d\d)?)$/.test(value.slice(10)) ? value : `${value}Z`)
        : value;
  }
  // The model's columns, each read as Prisma reads its type (the models written here hold no bytes, decimals nor JSON).
  return row as Row<M>;
}

/**
 * Updates one row by id as one statement, which is its own transaction: the tenancy and role checks
 * (from the caller's principal, as findForChange and authorize read it), the update, its action log
 * entry in the change log (read by the instances once it commits); answers the written row. A refusal changes
 * nothing and answers as those checks do, in their order: NOT_FOUND for a row the caller may not
 * see, FORBIDDEN for one it may not change, the reference's own refusal for a row of another organization.
 */
export async function updateRow<M extends OrganizationScopedModel>(
  ctx: Context,
  update: RowUpdate<M>,
): Promise<Row<M>> {
  const principal = principalOf(ctx);
  const columns = Object.keys(update.data).filter((column) => update.data[column as keyof Columns<M>] !== undefined);
  const references = update.references ?? [];
  const key = `${update.model}:${columns.join(',')}:${references.map((reference) => reference.column).join(',')}`;
  let sql = statements.get(key);
  if (!sql) statements.set(key, (sql = statementText(update.model, columns, references)));
  const values = columns.map((column) => parameter(update.data[column as keyof Columns<M>]));
  const [row] = await db().queryRows(sql, [
    update.rowId,
    visibleOrganizations(principal) ?? null,
    allowedOrganizations(principal, update.action) ?? null,
    principal.userId,
    new Date().toISOString(),
    update.entityType,
    update.event ?? 'UPDATED',
    principal.credential,
    ...values,
  ]);
  if (!row) throw notFound(update.label);
  if (row[1] === 1) return rowOf(update.model, JSON.parse(row[2] as string));
  authorize(ctx, update.action, row[0] as number);
  const refused = references.find((_, i) => row[3 + i] !== true);
  if (refused) throw refused.refused();
  // Allowed yet not written: the row went between the check and the update.
  throw notFound(update.label);
}

/** What a mutation's payload knows of the row it wrote: its id, and the row itself when one statement wrote it. */
export interface WrittenRow<M extends OrganizationScopedModel = OrganizationScopedModel> {
  rowId: number;
  row?: Row<M>;
}

/**
 * A payload's written row: the row the statement returned, when the payload asks for its columns
 * only (Pothos plans no relation), since reading it again would cost a statement for nothing; else
 * read with the payload's query. The row was written by this request: if it is gone, that is a
 * failure with its own cause.
 */
export function writtenRow<M extends OrganizationScopedModel>(
  model: M,
  query: PlannedQuery<M>,
  payload: WrittenRow<M>,
) {
  if (payload.row && !query.include && !query.select) return payload.row;
  return plannedRow(model, query, payload.rowId);
}
