import type { InputTypeParam } from '@pothos/core';
import type { Action } from '../auth/roles.js';
import type { OrganizationScopedModel } from '../auth/tenancy.js';
import { delegateOf, type Columns, type NewRow } from '../db/delegate.js';
import { boardSelect, isOnBoard } from '../live/board-of.js';
import { prisma } from '../db/index.js';
import { getDatamodel } from '../generated/pothos-types.js';
import { builder, type BuilderTypes, type InputFields } from './builder.js';
import { authorize, findForChange, recordChange, type Transaction } from './changes.js';
import type { Context } from './context.js';
import { badUserInput, isNotFound, nullIfNotFound } from './errors.js';
import { lowerFirst } from './case.js';
import { decodeGlobalId } from './global-id.js';
import { encodeGlobalId } from './relay-id.js';
import { modelCatalog } from './model-catalog.js';
import { orderedList, type OrderedList } from './positions.js';
import { writePlan } from '../write-plans/extension.js';
import { updateRow, writtenRow, type Reference, type WrittenRow } from './row-update.js';
import { atExpectedVersion, expectedVersionField } from './versions.js';

/** One input field of a create or update mutation, and how it is checked. */
export interface FieldSpec {
  type: InputTypeParam<BuilderTypes>;
  /** Required on create (update never requires a field). */
  required?: boolean;
  /** Longest string, after trimming. @default 255 */
  maxLength?: number;
  /** Allowed numeric range. */
  min?: number;
  max?: number;
  /** An Int row id of a row of this model, in the same organization as the changed row. */
  references?: OrganizationScopedModel;
  description?: string;
}

/** A description or other free text: up to 10,000 characters. */
export const longText: FieldSpec = { type: 'String', maxLength: 10_000 };

/** The board a new row goes on, in the board's organization. */
export const boardOfRow: FieldSpec = {
  type: 'Int',
  required: true,
  references: 'Whiteboard',
  description: 'Row id of the board.',
};

/** A column a create or update can write. */
export type ColumnName<M extends OrganizationScopedModel> = keyof NewRow<M> & string;

/** The columns of a new row as the caller gave them, its parent's row id among them. */
export type GivenColumns<M extends OrganizationScopedModel, P extends ColumnName<M>> = Columns<M> & {
  [K in P]: number;
};

export interface CrudSpec<
  M extends OrganizationScopedModel = OrganizationScopedModel,
  P extends ColumnName<M> = ColumnName<M>,
> {
  model: M;
  /** The GraphQL type; mutations are named create<Type>, update<Type>, delete<Type>. */
  typeName: string;
  /** The entity in messages ("Data stream not found"). */
  label: string;
  /** What the role matrix must allow. */
  action: Action;
  /** The reference field that places a new row in its organization (e.g. `whiteboardId`). */
  parent: P;
  /** The parent when the caller gives none (the active organization, for a new board). */
  defaultParent?: (ctx: Context) => number | null;
  fields: { [K in ColumnName<M>]?: FieldSpec };
  /** Columns set on create that the caller does not give (author, next position). */
  onCreate?: (tx: Transaction, data: GivenColumns<M, P>, ctx: Context) => Promise<Columns<M>> | Columns<M>;
  /** Checks across fields or rows, inside the transaction (on create, `data` holds the parent); throw badUserInput or conflict. */
  check?: (tx: Transaction, data: Columns<M>, rowId: number | null) => Promise<void>;
  /** Changes an update brings to other rows, in its transaction (e.g. values a new class no longer has). */
  onUpdate?: (tx: Transaction, data: Columns<M>, rowId: number) => Promise<void>;
  /** Refuses to delete a row still in use (throw conflict). */
  beforeDelete?: (tx: Transaction, rowId: number) => Promise<void>;
  /** @default ['create', 'update', 'delete'] */
  operations?: ('create' | 'update' | 'delete')[];
}

/** The `{ id, rowId }` pair by which a mutation names its target row. */
export function rowTargetFields(t: InputFields, label: string) {
  return {
    id: t.id({ description: `Global id of the ${label}; or give rowId.` }),
    rowId: t.int({ description: `Row id of the ${label}; or give id.` }),
  };
}

/** The answer of a deletion: the row is gone, so only its ids remain. */
export function deletedPayload(name: string, typeName: string) {
  return builder.objectRef<{ rowId: number }>(name).implement({
    fields: (t) => ({
      deletedRowId: t.exposeInt('rowId', { description: 'Row id of the deleted row.' }),
      deletedId: t.id({
        description: 'Global id of the deleted row.',
        resolve: (payload) => encodeGlobalId(typeName, payload.rowId),
      }),
    }),
  });
}

export function inputField(t: InputFields, spec: FieldSpec, required: boolean) {
  return t.field({ type: spec.type, required, description: spec.description });
}

const datamodel = getDatamodel().datamodel.models;

/** Whether the column may hold null, from the Prisma schema (null in an update clears an optional column). */
function nullableColumn(model: OrganizationScopedModel, column: string): boolean {
  return datamodel[model].fields.some((field) => field.name === column && !field.isRequired);
}

/** The spec's fields with their names, typed as the model's columns. */
export function fieldsOf<M extends OrganizationScopedModel>(
  fields: CrudSpec<M>['fields'],
): [ColumnName<M>, FieldSpec][] {
  // Object.entries types keys as strings; the spec's keys are the model's columns.
  return Object.entries(fields).filter((entry): entry is [ColumnName<M>, FieldSpec] => entry[1] !== undefined);
}

/** Trims and bounds strings, checks numeric ranges; names the offending input field (under `path`, e.g. `input.instances[2]`). */
export function cleanValues<M extends OrganizationScopedModel>(
  model: M,
  fields: [ColumnName<M>, FieldSpec][],
  input: { [field: string]: unknown },
  path = 'input',
): Columns<M> {
  const data: { [field: string]: unknown } = {};
  for (const [name, spec] of fields) {
    let value = input[name];
    if (value === undefined) continue;
    if (value === null && (spec.required || !nullableColumn(model, name)))
      throw badUserInput(`${name} cannot be null`, `${path}.${name}`);
    if (typeof value === 'string') {
      const trimmed = value.trim();
      if (spec.required && trimmed === '') throw badUserInput(`${name} cannot be empty`, `${path}.${name}`);
      const maxLength = spec.maxLength ?? 255;
      if (trimmed.length > maxLength)
        throw badUserInput(`${name} is longer than ${maxLength} characters`, `${path}.${name}`);
      value = trimmed;
    }
    if (
      typeof value === 'number' &&
      ((spec.min !== undefined && value < spec.min) || (spec.max !== undefined && value > spec.max))
    ) {
      throw badUserInput(`${name} must be between ${spec.min ?? '-∞'} and ${spec.max ?? '∞'}`, `${path}.${name}`);
    }
    data[name] = value;
  }
  // Its input type has one field per column, of the column's type, so GraphQL has checked each value.
  return data as Columns<M>;
}

/** The refusal of a referenced row that is not the caller's or not in the changed row's organization. */
const referenceRefused = (name: string, model: OrganizationScopedModel, rowId: unknown) =>
  badUserInput(`${name} ${rowId} is not a ${model} of this organization`, `input.${name}`);

/** The columns of `data` that name a row, for updateRow to check in its statement. */
function referencesOf<M extends OrganizationScopedModel>(spec: CrudSpec<M>, data: Columns<M>): Reference[] {
  return fieldsOf(spec.fields).flatMap(([name, field]) =>
    field.references && typeof data[name] === 'number'
      ? [
          {
            column: name,
            model: field.references,
            refused: () => referenceRefused(name, field.references!, data[name]),
          },
        ]
      : [],
  );
}

/** Every referenced row must exist for the caller and sit in the changed row's organization. */
async function checkReferences<M extends OrganizationScopedModel>(
  ctx: Context,
  tx: Transaction,
  spec: CrudSpec<M>,
  data: Columns<M>,
  organizationId: number,
) {
  for (const [name, field] of fieldsOf(spec.fields)) {
    const rowId = data[name];
    if (!field.references || typeof rowId !== 'number' || name === spec.parent) continue;
    const referenced = await findForChange(ctx, field.references, rowId, `${field.references} ${rowId}`, tx).catch(
      nullIfNotFound,
    );
    if (!referenced || referenced.organizationId !== organizationId)
      throw referenceRefused(name, field.references, rowId);
  }
}

/** An update's input: its target, the version it expects, and the columns it changes. */
type UpdateInput = {
  id?: string | null;
  rowId?: number | null;
  expectedVersion?: number | null;
  [field: string]: unknown;
};

/** The row a mutation targets: its global `id` or its `rowId`, exactly one of them (at `path`, e.g. `input.instances[2]`). */
export function targetRowId(
  input: { id?: string | null; rowId?: number | null },
  typeName: string,
  path = 'input',
): number {
  if ((input.id == null) === (input.rowId == null)) throw badUserInput('give either id or rowId', `${path}.id`);
  if (input.rowId != null) return input.rowId;
  const { typename, id } = decodeGlobalId(input.id!);
  if (typename !== typeName) throw badUserInput(`id is not a ${typeName} id`, `${path}.id`);
  return Number(id);
}

// The model is any of the union here, not a type parameter: Pothos can type a field of a known set of models, not of a generic one.
function payloadType(typeName: string, verb: string, model: OrganizationScopedModel) {
  return builder.objectRef<WrittenRow>(`${verb}${typeName}Payload`).implement({
    fields: (t) => ({
      [lowerFirst(typeName)]: t.prismaField({
        type: model,
        resolve: (query, payload) => writtenRow(model, query, payload),
      }),
    }),
  });
}

/**
 * Adds create<Type>, update<Type> and delete<Type>: validated, authorized by the role matrix, one
 * transaction each with its action log entry; an update that needs no check across rows is a
 * single statement (row-update.ts).
 */
export function defineCrudMutations<M extends OrganizationScopedModel, P extends ColumnName<M>>(
  spec: CrudSpec<M, P>,
): void {
  const { typeName, label, model } = spec;
  const fields = fieldsOf<M>(spec.fields);
  const operations = spec.operations ?? ['create', 'update', 'delete'];
  const target = (t: InputFields) => rowTargetFields(t, label.toLowerCase());

  if (operations.includes('create')) {
    const Input = builder.inputType(`Create${typeName}Input`, {
      fields: (t) =>
        Object.fromEntries(
          fields.map(([name, field]) => [
            name,
            inputField(t, field, !!field.required && !(name === spec.parent && spec.defaultParent)),
          ]),
        ),
    });
    const Payload = payloadType(typeName, 'Create', model);
    builder.mutationField(`create${typeName}`, (t) =>
      t.field({
        type: Payload,
        args: { input: t.arg({ type: Input, required: true }) },
        resolve: async (_root, args, ctx) => {
          const given = cleanValues(model, fields, args.input);
          const parentId = given[spec.parent] ?? spec.defaultParent?.(ctx);
          if (typeof parentId !== 'number') throw badUserInput(`${spec.parent} is required`, `input.${spec.parent}`);
          const data = { ...given, [spec.parent]: parentId } as GivenColumns<M, P>;
          const parentModel = spec.fields[spec.parent]!.references!;
          const parent = await findForChange(
            ctx,
            parentModel,
            parentId,
            label === parentModel ? label : parentModel,
          ).catch((error) => {
            throw isNotFound(error)
              ? badUserInput(`${spec.parent} ${parentId} does not exist`, `input.${spec.parent}`)
              : error;
          });
          authorize(ctx, spec.action, parent.organizationId);
          const row = await recordChange(
            ctx,
            { method: 'CREATE', entityType: typeName, organizationId: parent.organizationId },
            async (tx) => {
              await checkReferences(ctx, tx, spec, data, parent.organizationId);
              await spec.check?.(tx, data, null);
              const extra = await spec.onCreate?.(tx, data, ctx);
              // The input requires the required columns the caller gives; onCreate sets the others.
              return delegateOf(tx, model).create({ data: { ...data, ...extra } as NewRow<M>, select: { id: true } });
            },
          );
          return { rowId: row.id };
        },
      }),
    );
  }

  if (operations.includes('update')) {
    const Input = builder.inputType(`Update${typeName}Input`, {
      fields: (t) => ({
        ...target(t),
        expectedVersion: expectedVersionField(t),
        ...Object.fromEntries(
          fields.filter(([name]) => name !== spec.parent).map(([name, field]) => [name, inputField(t, field, false)]),
        ),
      }),
    });
    const Payload = payloadType(typeName, 'Update', model);
    const changed = (input: UpdateInput) =>
      cleanValues(
        model,
        fields.filter(([name]) => name !== spec.parent),
        input,
      );
    // Without checks across rows, the update is one statement (row-update.ts), which answers the written row.
    const inOneStatement = async (input: UpdateInput, ctx: Context) => {
      const rowId = targetRowId(input, typeName);
      const data = changed(input);
      const references = referencesOf(spec, data);
      const row = await updateRow(ctx, {
        model,
        rowId,
        data,
        action: spec.action,
        label,
        entityType: typeName,
        references,
        expectedVersion: input.expectedVersion,
      });
      return { rowId, row };
    };
    const inTransaction = async (input: UpdateInput, ctx: Context) => {
      const rowId = targetRowId(input, typeName);
      const data = changed(input);
      const row = await findForChange(ctx, model, rowId, label);
      authorize(ctx, spec.action, row.organizationId);
      await recordChange(
        ctx,
        { method: 'UPDATE', entityType: typeName, organizationId: row.organizationId },
        async (tx) => {
          await checkReferences(ctx, tx, spec, data, row.organizationId);
          await spec.check?.(tx, data, rowId);
          await spec.onUpdate?.(tx, data, rowId);
          return atExpectedVersion(tx, model, rowId, input.expectedVersion, label, (where) =>
            delegateOf(tx, model).update({ where, data, select: { id: true } }),
          );
        },
      );
      return { rowId };
    };
    const oneStatement = !spec.check && !spec.onUpdate;
    builder.mutationField(`update${typeName}`, (t) =>
      t.field({
        type: Payload,
        args: { input: t.arg({ type: Input, required: true }) },
        ...(oneStatement && {
          extensions: writePlan({
            model,
            rowField: lowerFirst(typeName),
            write: async (args, ctx) => (await inOneStatement(args.input as UpdateInput, ctx)).row,
          }),
        }),
        resolve: (_root, args, ctx): Promise<WrittenRow> =>
          (oneStatement ? inOneStatement : inTransaction)(args.input as UpdateInput, ctx),
      }),
    );
  }

  if (operations.includes('delete')) {
    const Input = builder.inputType(`Delete${typeName}Input`, {
      fields: (t) => ({ ...target(t), expectedVersion: expectedVersionField(t) }),
    });
    const Payload = deletedPayload(`Delete${typeName}Payload`, typeName);
    builder.mutationField(`delete${typeName}`, (t) =>
      t.field({
        type: Payload,
        args: { input: t.arg({ type: Input, required: true }) },
        resolve: async (_root, args, ctx) => {
          const rowId = targetRowId(args.input, typeName);
          const row = await findForChange(ctx, model, rowId, label);
          authorize(ctx, spec.action, row.organizationId);
          await recordChange(
            ctx,
            { method: 'DELETE', entityType: typeName, organizationId: row.organizationId },
            async (tx) => {
              await spec.beforeDelete?.(tx, rowId);
              // The board is read before the row goes, so subscribers of that board hear of it.
              return atExpectedVersion(tx, model, rowId, args.input.expectedVersion, label, (where) =>
                delegateOf(tx, model).delete({
                  where,
                  select: { id: true, ...(isOnBoard(model) ? boardSelect(model) : {}) },
                }),
              );
            },
          );
          return { rowId };
        },
      }),
    );
  }
}

export interface ReorderSpec<L extends OrderedList> {
  /** The children ordered (their parent is in positions.ts). */
  model: L;
  /** Mutation name, e.g. `reorderSlides`. */
  name: string;
  label: string;
  action: Action;
}

/** `{ [key]: value }` typed by its key: TypeScript widens a computed key of a type parameter to any string. */
function keyed<K extends string, V>(key: K, value: V): { [P in K]: V } {
  return { [key]: value } as { [P in K]: V };
}

/** Numbers the rows `ids` names 1, 2, ... in that order, in one statement (their `updatedAt` now, as Prisma's update sets it). */
async function setPositions(tx: Transaction, model: OrderedList, ids: number[]): Promise<void> {
  const { table, columns } = modelCatalog().get(model)!;
  const order = columns.get('order')!.name;
  const updatedAt = columns.get('updatedAt')?.name;
  const stamp = updatedAt ? `, "${updatedAt}" = $2::timestamp(3)` : '';
  await tx.$executeRawUnsafe(
    `UPDATE "${table}" SET "${order}" = v.position${stamp} FROM unnest($1::int[]) WITH ORDINALITY AS v(id, position) WHERE "${table}".id = v.id`,
    ids,
    ...(updatedAt ? [new Date()] : []),
  );
}

/** Adds a mutation that takes the complete ordered list of a parent's children and applies it atomically. */
export function defineReorderMutation<L extends OrderedList>(spec: ReorderSpec<L>): void {
  const { parentModel, parentField, children } = orderedList(spec.model);
  // Pothos types fields of a known set of models, not of a type parameter.
  const model: OrderedList = spec.model;
  const Input = builder.inputType(`${spec.name[0].toUpperCase()}${spec.name.slice(1)}Input`, {
    fields: (t) => ({
      ...keyed(parentField, t.int({ required: true, description: `Row id of the ${parentModel}.` })),
      ids: t.intList({ required: true, description: 'Row ids of all its children, in the new order.' }),
      expectedVersion: expectedVersionField(
        t,
        `Reorder only if the ${parentModel} is at this version (its \`version\` as last read; every reorder raises it); otherwise nothing changes and the answer is CONFLICT with the ${parentModel}'s current version and row.`,
      ),
    }),
  });
  builder.mutationField(spec.name, (t) =>
    t.prismaField({
      type: [model],
      description: `Sets the order of every ${spec.label.toLowerCase()} of one ${parentModel}; the list must hold each exactly once.`,
      args: { input: t.arg({ type: Input, required: true }) },
      resolve: async (query, _root, { input }, ctx) => {
        const parent = await findForChange(ctx, parentModel, input[parentField], parentModel);
        authorize(ctx, spec.action, parent.organizationId);
        await recordChange(
          ctx,
          { method: 'UPDATE', entityType: parentModel, organizationId: parent.organizationId, event: 'REORDERED' },
          async (tx) => {
            // The order is the parent's: a reorder changes the parent (raising its version), at the
            // version expected, first, so concurrent reorders and appends (positions.ts) take turns.
            await atExpectedVersion(tx, parentModel, parent.id, input.expectedVersion, parentModel, (where) =>
              delegateOf(tx, parentModel).update({ where, data: { updatedAt: new Date() }, select: { id: true } }),
            );
            // Read inside the transaction, so a child added meanwhile cannot slip past the check.
            const rows = await delegateOf(tx, model).findMany({ where: children(parent.id), select: { id: true } });
            const expected = new Set(rows.map((row) => row.id));
            if (
              input.ids.length !== expected.size ||
              new Set(input.ids).size !== input.ids.length ||
              !input.ids.every((id) => expected.has(id))
            ) {
              throw badUserInput(
                `ids must list each ${spec.label.toLowerCase()} of ${parentModel} ${parent.id} exactly once`,
                'input.ids',
              );
            }
            await setPositions(tx, model, input.ids);
            return { id: parent.id };
          },
        );
        return delegateOf(prisma(), model).findMany({
          ...query,
          where: children(parent.id),
          orderBy: [{ order: 'asc' }, { id: 'asc' }],
        });
      },
    }),
  );
}
