import type { PlannedQuery, Row } from '../../db/delegate.js';
import { prisma } from '../../db/index.js';
import { entriesInsert, stepColumns, stepFence, type RequestStep } from '../../live/log.js';
import { parameter, sql, type SQL } from '../../read-plans/sql.js';
import { builder } from '../builder.js';
import { authorize, nextStep, stepFenced } from '../changes.js';
import { principalOf, type Context } from '../context.js';
import { cleanValues, fieldsOf, inputField, rowTargetFields, targetRowId } from '../crud.js';
import { badUserInput, notFound, versionConflict } from '../errors.js';
import { expectedVersionField } from '../versions.js';
import { rowOf } from '../row-update.js';
import {
  answerColumns,
  answerOf,
  callerInputs,
  callerSlots,
  columnNameOf,
  columnOf,
  RequestValue,
  shapedStatement,
  stepSlots,
  tableOf,
  within,
  type Caller,
} from '../write-statement.js';
import { instancePlacement } from './mutations.js';

/** Most instances one move may name: a selection an editor drags, written by one statement. */
export const MAX_MOVED_INSTANCES = 500;

const model = 'WhiteboardObjectInstance';
const action = 'editContent';
const placement = fieldsOf<typeof model>(instancePlacement);
const sqlTypes: Record<string, string> = { Float: 'float8', Int: 'int' };

/**
 * The statement of a move: the board under the caller's tenancy and role; the instances named, found
 * on it and locked in id order before any is written (so that one deleted meanwhile stops the whole
 * move, and two moves never deadlock); the updates, only when every instance was found; an entry per
 * instance in the change log, the first of which tells the move and names them all. Answers the
 * board's organization, the first item not on the board (`missing`, from 1), the first whose instance
 * is not at its expected version (`stale`, with that instance as JSON, read locked: as it is now), the
 * written rows (JSON). Versions are read only when a move expects one.
 */
function moveStatement(versioned: boolean, caller: Caller, step?: RequestStep): SQL {
  const instance = tableOf(model);
  // One array per placement column, null where an instance keeps its value (filled by moveInstances).
  const arrays = placement.map(([name, spec]) =>
    parameter(new RequestValue(`placement:${name}`), `${sqlTypes[spec.type as string]}[]`),
  );
  const changed = placement.map((_, i) => sql.identifier(`c${i}`));
  const assignments = [
    ...placement.map(
      ([name], i) =>
        sql`${sql.identifier(columnNameOf(model, name))} = COALESCE(m.${changed[i]}, ${columnOf(model, name, sql`w`)})`,
    ),
    sql`${sql.identifier(columnNameOf(model, 'updatedAt'))} = ${caller.at}`,
  ];
  const ids = parameter(new RequestValue('ids'), 'int[]');
  if (versioned) {
    arrays.push(parameter(new RequestValue('expected'), 'int[]'));
    changed.push(sql.identifier('expected'));
  }
  const logged = entriesInsert(
    {
      method: sql`'UPDATE'::action_method`,
      userId: caller.user,
      createdAt: caller.at,
      credential: caller.credential,
      entityType: parameter(model, 'text'),
      kind: sql`CASE WHEN n = 1 THEN 'MOVED' END`,
      entityId: sql`id`,
      organizationId: sql`organization_id`,
      whiteboardId: sql`whiteboard_id`,
      rowIds: sql`CASE WHEN n = 1 THEN (SELECT array_agg(id ORDER BY n) FROM written) END`,
      ...(step && stepColumns(step)),
    },
    sql`written`,
  );
  return sql`WITH board AS (
  SELECT b.id, b.organization_id, ${within(caller.allowed, sql`b.organization_id`)} AS allowed
  FROM ${tableOf('Whiteboard')} b WHERE b.id = ${parameter(new RequestValue('whiteboardId'), 'int')} AND ${within(caller.visible, sql`b.organization_id`)}
), moves AS (
  SELECT * FROM unnest(${ids}, ${sql.join(arrays, ', ')}) WITH ORDINALITY AS m(id, ${sql.join(changed, ', ')}, n)
), found AS MATERIALIZED (
  SELECT i.id${versioned ? sql`, i.version, row_to_json(i)::text AS row` : sql``} FROM ${instance} i
  JOIN ${tableOf('WhiteboardObject')} o ON o.id = ${columnOf(model, 'objectId', sql`i`)}
  JOIN board ON board.allowed AND ${columnOf('WhiteboardObject', 'whiteboardId', sql`o`)} = board.id
  WHERE i.id = ANY(${ids}) ORDER BY i.id FOR UPDATE OF i
), missing AS (
  SELECT min(n)::int AS n FROM moves WHERE id NOT IN (SELECT id FROM found)
)${
    versioned
      ? sql`, stale AS (
  SELECT m.n, f.row FROM moves m JOIN found f ON f.id = m.id WHERE f.version <> m.expected ORDER BY m.n LIMIT 1
)`
      : sql``
  }, written AS (
  UPDATE ${instance} AS w SET ${sql.join(assignments, ', ')}
  FROM moves m, board WHERE w.id = m.id AND (SELECT n FROM missing) IS NULL${versioned ? sql` AND NOT EXISTS (SELECT FROM stale)` : sql``}${step ? sql` AND ${stepFence(step)}` : sql.blank}
  RETURNING m.n, w.id, board.organization_id, board.id AS whiteboard_id, row_to_json(w) AS row
), logged AS (
  ${logged}
)
SELECT ${answerColumns([
    ['organizationId', sql`board.organization_id`],
    ['missing', sql`(SELECT n FROM missing)`],
    ['rows', sql`(SELECT json_agg(row ORDER BY n) FROM written)::text`],
    ...staleAnswer(versioned),
    ...(step ? [['held', stepFence(step)] as [string, SQL]] : []),
  ])} FROM board`;
}

/** The answer columns of a versioned move: the first item not at its expected version, and its instance. */
const staleAnswer = (versioned: boolean): [string, SQL][] =>
  versioned
    ? [
        ['stale', sql`(SELECT n FROM stale)`],
        ['staleRow', sql`(SELECT row FROM stale)`],
      ]
    : [];

interface Move {
  rowId: number;
  /** The version its instance must be at (none: any). */
  expected: number | null;
  /** Which field of the item named it, for a refusal. */
  named: 'id' | 'rowId';
  data: Record<string, unknown>;
}

type MoveInput = { id?: string | null; rowId?: number | null; [column: string]: unknown };

/** Each instance once, with values the single-instance update would accept; BAD_USER_INPUT naming the item's field otherwise. */
function checkedMoves(instances: MoveInput[]): Move[] {
  if (instances.length === 0 || instances.length > MAX_MOVED_INSTANCES)
    throw badUserInput(
      `instances must name between 1 and ${MAX_MOVED_INSTANCES} object instances, not ${instances.length}`,
      'input.instances',
    );
  const seen = new Map<number, number>();
  return instances.map((instance, i) => {
    const path = `input.instances[${i}]`;
    const rowId = targetRowId(instance, model, path);
    const named = instance.rowId != null ? 'rowId' : 'id';
    const first = seen.get(rowId);
    if (first !== undefined)
      throw badUserInput(
        `instances[${i}] names object instance ${rowId} again (instances[${first}])`,
        `${path}.${named}`,
      );
    seen.set(rowId, i);
    return {
      rowId,
      named,
      expected: (instance.expectedVersion as number | null | undefined) ?? null,
      data: cleanValues(model, placement, instance, path),
    };
  });
}

/**
 * Moves and resizes the instances on board `whiteboardId` in one statement, its own transaction: the
 * board under the caller's tenancy and role (as findForChange and authorize read them), the updates,
 * a change log entry per instance, the first of which tells the move and names them all. Answers the written rows in
 * the order given; a refusal changes nothing: NOT_FOUND for a board the caller may not see, FORBIDDEN
 * for one it may not change, BAD_USER_INPUT at the first instance that is not on the board. In a keyed
 * request, a move an earlier attempt committed is not made again: the rows are read as they are.
 */
async function moveInstances(ctx: Context, whiteboardId: number, moves: Move[]): Promise<Row<typeof model>[]> {
  const keyed = nextStep(ctx);
  if (keyed?.done) return rowsNow(moves.map((move) => move.rowId));
  const versioned = moves.some((move) => move.expected != null);
  const inputs = {
    ...callerInputs(principalOf(ctx), action),
    ...keyed?.step,
    whiteboardId,
    ids: moves.map((move) => move.rowId),
    expected: moves.map((move) => move.expected),
    ...Object.fromEntries(
      placement.map(([name]) => [`placement:${name}`, moves.map((move) => move.data[name] ?? null)]),
    ),
  };
  const statement = shapedStatement(
    JSON.stringify(['move', versioned, keyed !== undefined]),
    () => moveStatement(versioned, callerSlots, keyed && stepSlots),
    inputs,
  );
  const answer = await answerOf(statement, [
    'organizationId',
    'missing',
    'rows',
    ...(versioned ? ['stale', 'staleRow'] : []),
    ...(keyed ? ['held'] : []),
  ]);
  if (!answer) throw notFound('Whiteboard');
  const { organizationId, missing, rows, stale, staleRow, held } = answer as {
    organizationId: number;
    missing: number | null;
    rows: string | null;
    stale?: number | null;
    staleRow?: string | null;
    held?: boolean;
  };
  if (rows !== null) return (JSON.parse(rows) as Record<string, unknown>[]).map((columns) => rowOf(model, columns));
  if (held === false) throw stepFenced();
  authorize(ctx, action, organizationId);
  if (missing === null && stale != null) {
    const item = `input.instances[${stale - 1}]`;
    throw versionConflict(
      `${item}: object instance ${moves[stale - 1].rowId}`,
      rowOf(model, JSON.parse(staleRow!)),
      `${item}.expectedVersion`,
    );
  }
  // Allowed, every instance on the board, yet nothing written: the board went between the check and the update.
  if (missing === null) throw notFound('Whiteboard');
  const refused = moves[missing - 1];
  throw badUserInput(
    `instances[${missing - 1}]: object instance ${refused.rowId} is not on whiteboard ${whiteboardId}`,
    `input.instances[${missing - 1}].${refused.named}`,
  );
}

/** The moved instances as they are now, read with `query`, in the order given. */
async function rowsNow(ids: number[], query: PlannedQuery<typeof model> = {}) {
  const read = await prisma().whiteboardObjectInstance.findMany({ ...query, where: { id: { in: ids } } });
  const byId = new Map(read.map((row) => [row.id, row]));
  return ids.map((id) => {
    const found = byId.get(id);
    // This request wrote it: one gone since is a failure with its own cause.
    if (!found) throw new Error(`object instance ${id} was deleted after it was moved`);
    return found;
  });
}

/** The moved rows as the payload's selection asks: the written rows themselves when it asks their columns only. */
async function movedRows(query: PlannedQuery<typeof model>, rows: Row<typeof model>[]) {
  if (!query.include && !query.select) return rows;
  return rowsNow(
    rows.map((row) => row.id),
    query,
  );
}

const Move = builder.inputType('WhiteboardObjectInstanceMove', {
  description: "One instance's new place and size; a field left out keeps its value.",
  fields: (t) => ({
    ...rowTargetFields(t, 'object instance'),
    expectedVersion: expectedVersionField(t),
    ...Object.fromEntries(placement.map(([name, spec]) => [name, inputField(t, spec, false)])),
  }),
});

const Input = builder.inputType('MoveWhiteboardObjectInstancesInput', {
  fields: (t) => ({
    whiteboardId: t.int({ required: true, description: 'Row id of the board the instances are on.' }),
    instances: t.field({
      type: [Move],
      required: true,
      description: `The instances to move, each once: 1 to ${MAX_MOVED_INSTANCES}, all on the board.`,
    }),
  }),
});

const Payload = builder.objectRef<{ rows: Row<typeof model>[] }>('MoveWhiteboardObjectInstancesPayload').implement({
  fields: (t) => ({
    whiteboardObjectInstances: t.prismaField({
      type: [model],
      description: 'The moved instances, in the order given.',
      resolve: (query, payload) => movedRows(query, payload.rows),
    }),
  }),
});

builder.mutationField('moveWhiteboardObjectInstances', (t) =>
  t.field({
    type: Payload,
    description:
      'Moves and resizes object instances of one board together (a dragged selection): all of them or, on any refusal (an instance not at its expectedVersion among them), none; one live event names them all.',
    args: { input: t.arg({ type: Input, required: true }) },
    resolve: async (_root, { input }, ctx) => ({
      rows: await moveInstances(ctx, input.whiteboardId, checkedMoves(input.instances as MoveInput[])),
    }),
  }),
);
