import type { Action } from '../auth/roles.js';
import { type ModelName, organizationPath, type OrganizationScopedModel } from '../auth/tenancy.js';
import type { Columns, PlannedQuery, Row } from '../db/delegate.js';
import { getDatamodel } from '../generated/pothos-types.js';
import type { EventKind } from '../live/events.js';
import { entriesInsert, stepColumns, stepFence, type RequestStep } from '../live/log.js';
import { parameter, sql, type SQL } from '../read-plans/sql.js';
import { type Join, modelCatalog } from './model-catalog.js';
import { authorize, nextStep, stepFenced } from './changes.js';
import { principalOf, type Context } from './context.js';
import { notFound } from './errors.js';
import { staleConflict } from './versions.js';
import { changedRow } from './loaders.js';
import {
  answerColumns,
  answerOf,
  callerInputs,
  callerSlots,
  columnNameOf,
  columnOf,
  tableOf,
  RequestValue,
  shapedStatement,
  stepSlots,
  versionCheck,
  within,
  written,
  type Caller,
} from './write-statement.js';

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
  /** The version the row must be at (none: any). */
  expectedVersion?: number | null;
}

/** A column naming a row of `model`, and the refusal when that row is not in the changed row's organization. */
export interface Reference {
  column: string;
  model: OrganizationScopedModel;
  refused: () => Error;
}

const datamodel = getDatamodel().datamodel.models;

/** The organization and board of the row aliased `row`, and the joins that reach them along its ownership path (tenancy.ts). */
function ownership(model: OrganizationScopedModel, row: string) {
  const path = organizationPath(model);
  const joins: SQL[] = [];
  let [alias, current]: [SQL, ModelName] = [sql.identifier(row), model];
  let board = model === 'Whiteboard' ? columnOf(model, 'id', alias) : sql`NULL::int`;
  for (const [i, relation] of path.slice(0, -1).entries()) {
    const join: Join = modelCatalog().get(current)!.joins.get(relation)!;
    const next = sql.identifier(`${row}_${i + 1}`);
    joins.push(
      sql`JOIN ${tableOf(join.target)} ${next} ON ${next}.${sql.identifier(join.childColumn)} = ${alias}.${sql.identifier(join.parentColumn)}`,
    );
    if (join.target === 'Whiteboard') board = columnOf(join.target, 'id', next);
    [alias, current] = [next, join.target];
  }
  return { joins, organization: columnOf(current, path[path.length - 1], alias), board };
}

/** Whether `value` names a row of `model` in the organization `organization` (the changed row's). */
function referenceSql(model: OrganizationScopedModel, value: SQL, alias: string, organization: SQL): SQL {
  const reached = ownership(model, alias);
  return sql`EXISTS (SELECT FROM ${tableOf(model)} ${sql.identifier(alias)} ${sql.join(reached.joins, ' ')}
    WHERE ${columnOf(model, 'id', sql.identifier(alias))} = ${value} AND ${reached.organization} = ${organization})`;
}

/**
 * The statement of one row's update: the row found under the caller's tenancy with its organization,
 * board and each reference's check; the update where the caller may change it and every reference
 * holds; its change log entry. Answers the row's organization, whether it was written (`logged`), the
 * written row as JSON, and each reference's check (`ok0`, `ok1`...).
 */
function updateStatement<M extends OrganizationScopedModel>(
  update: RowUpdate<M>,
  caller: Caller,
  columns: string[],
  step?: RequestStep,
): SQL {
  const { model } = update;
  const { joins, organization, board } = ownership(model, 't');
  const values = new Map(columns.map((column) => [column, written(update.data[column as keyof Columns<M>])]));
  const checks = (update.references ?? []).map((reference, i): [string, SQL] => [
    `ok${i}`,
    referenceSql(reference.model, values.get(reference.column)!, `r${i}`, organization),
  ]);
  const updatedAt = datamodel[model].fields.find((field) => field.isUpdatedAt && !columns.includes(field.name));
  const assignments = [
    ...columns.map((column) => sql`${sql.identifier(columnNameOf(model, column))} = ${values.get(column)!}`),
    ...(updatedAt ? [sql`${sql.identifier(columnNameOf(model, updatedAt.name))} = ${caller.at}`] : []),
  ];
  const id = (alias: SQL) => columnOf(model, 'id', alias);
  const logged = entriesInsert(
    {
      method: sql`'UPDATE'::action_method`,
      userId: caller.user,
      createdAt: caller.at,
      credential: caller.credential,
      entityType: parameter(update.entityType, 'text'),
      kind: parameter(update.event ?? 'UPDATED', 'text'),
      entityId: sql`id`,
      organizationId: sql`organization_id`,
      whiteboardId: sql`whiteboard_id`,
      ...(step && stepColumns(step)),
    },
    sql`written`,
  );
  const holds = [
    ...checks.map(([name]) => sql` AND target.${sql.identifier(name)}`),
    ...(step ? [sql` AND ${stepFence(step)}`] : []),
  ];
  const version = versionCheck(update.expectedVersion, sql`t`, sql`w`);
  const stale: [string, SQL][] = version ? [['stale', version.stale]] : [];
  return sql`WITH target AS (
  SELECT ${answerColumns([['id', id(sql`t`)], ['organization_id', organization], ['whiteboard_id', board], ...checks, ...stale])}
  FROM ${tableOf(model)} t ${sql.join(joins, ' ')}
  WHERE ${id(sql`t`)} = ${parameter(update.rowId, 'int')} AND ${within(caller.visible, organization)}${version?.lock ?? sql``}
), written AS (
  UPDATE ${tableOf(model)} AS w SET ${sql.join(assignments, ', ')}
  FROM target WHERE ${id(sql`w`)} = target.id AND ${within(caller.allowed, sql`target.organization_id`)}${sql.join(holds, '')}${version?.holds ?? sql``}
  RETURNING target.*, row_to_json(w)::text AS row
), logged AS (
  ${logged} RETURNING 1
)
SELECT ${answerColumns([
    ['organizationId', sql`target.organization_id`],
    ['logged', sql`(SELECT count(*) FROM logged)::int`],
    ['row', sql`(SELECT row FROM written)`],
    ...[...checks, ...stale].map(([name]): [string, SQL] => [name, sql`target.${sql.identifier(name)}`]),
    ...(step ? [['held', stepFence(step)] as [string, SQL]] : []),
  ])} FROM target`;
}

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
 * (from the caller's principal, as findForChange and authorize read it), the update, its entry in the
 * change log (read by the instances once it commits); answers the written row. A refusal changes
 * nothing and answers as those checks do, in their order: NOT_FOUND for a row the caller may not
 * see, FORBIDDEN for one it may not change, the reference's own refusal for a row of another
 * organization, CONFLICT with the current row for a row not at the expected version.
 * In a keyed request, a step an earlier attempt committed is not made again: the row is read as it is.
 */
export async function updateRow<M extends OrganizationScopedModel>(
  ctx: Context,
  update: RowUpdate<M>,
): Promise<Row<M>> {
  const principal = principalOf(ctx);
  const keyed = nextStep(ctx);
  if (keyed?.done) return changedRow(update.model, {}, update.rowId);
  const columns = Object.keys(update.data).filter((column) => update.data[column as keyof Columns<M>] !== undefined);
  const checks = (update.references ?? []).map((_, i) => `ok${i}`);
  const versioned = update.expectedVersion != null;
  // What shapes the statement: everything but the values, which RequestValues stand for.
  const shape = JSON.stringify([
    update.model,
    update.action,
    update.entityType,
    update.event,
    columns,
    update.references?.map((reference) => [reference.column, reference.model]),
    keyed !== undefined,
    versioned,
  ]);
  const build = () =>
    updateStatement(
      {
        ...update,
        rowId: new RequestValue('rowId'),
        data: Object.fromEntries(columns.map((column) => [column, new RequestValue(`data:${column}`)])),
        expectedVersion: versioned ? new RequestValue('expectedVersion') : null,
      } as unknown as RowUpdate<M>,
      callerSlots,
      columns,
      keyed && stepSlots,
    );
  const inputs = {
    ...callerInputs(principal, update.action),
    ...keyed?.step,
    rowId: update.rowId,
    expectedVersion: update.expectedVersion,
    ...Object.fromEntries(columns.map((column) => [`data:${column}`, update.data[column as keyof Columns<M>]])),
  };
  const answer = await answerOf(shapedStatement(shape, build, inputs), [
    'organizationId',
    'logged',
    'row',
    ...checks,
    ...(update.expectedVersion == null ? [] : ['stale']),
    ...(keyed ? ['held'] : []),
  ]);
  if (!answer) throw notFound(update.label);
  if (answer.logged === 1) return rowOf(update.model, JSON.parse(answer.row as string));
  if (answer.held === false) throw stepFenced();
  authorize(ctx, update.action, answer.organizationId as number);
  const refused = update.references?.find((_, i) => answer[`ok${i}`] !== true);
  if (refused) throw refused.refused();
  if (typeof answer.stale === 'string') {
    const current = rowOf(update.model, JSON.parse(answer.stale));
    // The statement read a versioned model's row.
    throw staleConflict(update.model, update.label, current as typeof current & { version: number });
  }
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
 * read with the payload's query (NOT_FOUND if it was deleted since: loaders.ts, changedRow).
 */
export function writtenRow<M extends OrganizationScopedModel>(
  model: M,
  query: PlannedQuery<M>,
  payload: WrittenRow<M>,
) {
  if (payload.row && !query.include && !query.select) return payload.row;
  return changedRow(model, query, payload.rowId);
}
