import type { Action } from '../auth/roles.js';
import type { OrganizationScopedModel } from '../auth/tenancy.js';
import { delegateOf } from '../db/delegate.js';
import { boardSelect, isOnBoard } from '../live/board-of.js';
import { prisma } from '../db/index.js';
import { getDatamodel } from '../generated/pothos-types.js';
import { builder } from './builder.js';
import { authorize, findForChange, recordChange, type Transaction } from './changes.js';
import type { Context } from './context.js';
import { badUserInput, isNotFound, nullIfNotFound } from './errors.js';
import { decodeGlobalId } from './global-id.js';

type Scalar = 'String' | 'Int' | 'Float' | 'Boolean' | 'DateTime';
/** Any enum type made with `builder.enumType`. */
type EnumTypeRef = { kind: 'Enum'; name: string };

/** One input field of a create or update mutation, and how it is checked. */
export interface FieldSpec {
  type: Scalar | EnumTypeRef | ['String'];
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

export interface CrudSpec {
  model: OrganizationScopedModel;
  /** The GraphQL type; mutations are named create<Type>, update<Type>, delete<Type>. */
  typeName: string;
  /** The entity in messages ("Data stream not found"). */
  label: string;
  /** What the role matrix must allow. */
  action: Action;
  /** The reference field that places a new row in its organization (e.g. `whiteboardId`). */
  parent: string;
  /** The parent when the caller gives none (the active organization, for a new board). */
  defaultParent?: (ctx: Context) => number | null;
  fields: Record<string, FieldSpec>;
  /** Columns set on create that the caller does not give (author, next position). */
  onCreate?: (tx: Transaction, data: Record<string, unknown>, ctx: Context) => Promise<Record<string, unknown>> | Record<string, unknown>;
  /** Checks across fields or rows, inside the transaction; throw badUserInput or conflict. */
  check?: (tx: Transaction, data: Record<string, unknown>, rowId: number | null) => Promise<void>;
  /** Changes an update brings to other rows, in its transaction (e.g. values a new class no longer has). */
  onUpdate?: (tx: Transaction, data: Record<string, unknown>, rowId: number) => Promise<void>;
  /** Refuses to delete a row still in use (throw conflict). */
  beforeDelete?: (tx: Transaction, rowId: number) => Promise<void>;
  /** @default ['create', 'update', 'delete'] */
  operations?: ('create' | 'update' | 'delete')[];
}

const lowerFirst = (name: string) => name[0].toLowerCase() + name.slice(1);

export type InputFields = Parameters<Parameters<typeof builder.inputType>[1]['fields']>[0];

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
      deletedId: t.id({ description: 'Global id of the deleted row.', resolve: (payload) => Buffer.from(`${typeName}:${payload.rowId}`).toString('base64') }),
    }),
  });
}

function inputField(t: InputFields, spec: FieldSpec, required: boolean) {
  const type = Array.isArray(spec.type) ? [spec.type[0]] : spec.type;
  return t.field({ type: type as never, required, description: spec.description });
}

const datamodel = getDatamodel().datamodel.models;

/** Whether the column may hold null, from the Prisma schema (null in an update clears an optional column). */
function nullableColumn(model: OrganizationScopedModel, column: string): boolean {
  return datamodel[model].fields.some((field) => field.name === column && !field.isRequired);
}

/** Trims and bounds strings, checks numeric ranges; names the offending input field. */
function cleanValues(model: OrganizationScopedModel, fields: Record<string, FieldSpec>, input: Record<string, unknown>): Record<string, unknown> {
  const data: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(fields)) {
    let value = input[name];
    if (value === undefined) continue;
    if (value === null && (spec.required || !nullableColumn(model, name))) throw badUserInput(`${name} cannot be null`, `input.${name}`);
    if (typeof value === 'string') {
      value = value.trim();
      if (spec.required && value === '') throw badUserInput(`${name} cannot be empty`, `input.${name}`);
      const maxLength = spec.maxLength ?? 255;
      if ((value as string).length > maxLength) throw badUserInput(`${name} is longer than ${maxLength} characters`, `input.${name}`);
    }
    if (typeof value === 'number' && ((spec.min !== undefined && value < spec.min) || (spec.max !== undefined && value > spec.max))) {
      throw badUserInput(`${name} must be between ${spec.min ?? '-∞'} and ${spec.max ?? '∞'}`, `input.${name}`);
    }
    data[name] = value;
  }
  return data;
}

/** Every referenced row must exist for the caller and sit in the changed row's organization. */
async function checkReferences(ctx: Context, tx: Transaction, spec: CrudSpec, data: Record<string, unknown>, organizationId: number) {
  for (const [name, field] of Object.entries(spec.fields)) {
    const rowId = data[name];
    if (!field.references || rowId == null || name === spec.parent) continue;
    const referenced = await findForChange(ctx, field.references, rowId as number, `${field.references} ${rowId}`, tx).catch(nullIfNotFound);
    if (!referenced || referenced.organizationId !== organizationId) {
      throw badUserInput(`${name} ${rowId} is not a ${field.references} of this organization`, `input.${name}`);
    }
  }
}

/** The row a mutation targets: its global `id` or its `rowId`, exactly one of them. */
export function targetRowId(input: { id?: string | null; rowId?: number | null }, typeName: string): number {
  if ((input.id == null) === (input.rowId == null)) throw badUserInput('give either id or rowId', 'input.id');
  if (input.rowId != null) return input.rowId;
  const { typename, id } = decodeGlobalId(input.id!);
  if (typename !== typeName) throw badUserInput(`id is not a ${typeName} id`, 'input.id');
  return Number(id);
}

function payloadType(typeName: string, verb: string, spec: CrudSpec) {
  return builder.objectRef<{ rowId: number }>(`${verb}${typeName}Payload`).implement({
    fields: (t) => ({
      [lowerFirst(typeName)]: t.prismaField({
        type: spec.model as never,
        resolve: (query, payload) => delegateOf(prisma(), spec.model).findUnique({ ...query, where: { id: payload.rowId } }) as never,
      }),
    }),
  });
}

/** Adds create<Type>, update<Type> and delete<Type>: validated, authorized by the role matrix, one transaction each with its action log entry. */
export function defineCrudMutations(spec: CrudSpec): void {
  const { typeName, label, model } = spec;
  const operations = spec.operations ?? ['create', 'update', 'delete'];
  const target = (t: InputFields) => rowTargetFields(t, label.toLowerCase());

  if (operations.includes('create')) {
    const Input = builder.inputType(`Create${typeName}Input`, {
      fields: (t) =>
        Object.fromEntries(
          Object.entries(spec.fields).map(([name, field]) => [name, inputField(t, field, !!field.required && !(name === spec.parent && spec.defaultParent))]),
        ),
    });
    const Payload = payloadType(typeName, 'Create', spec);
    builder.mutationField(`create${typeName}`, (t) =>
      t.field({
        type: Payload,
        args: { input: t.arg({ type: Input, required: true }) },
        resolve: async (_root, args, ctx) => {
          const data = cleanValues(model, spec.fields, args.input as Record<string, unknown>);
          data[spec.parent] ??= spec.defaultParent?.(ctx) ?? undefined;
          if (data[spec.parent] == null) throw badUserInput(`${spec.parent} is required`, `input.${spec.parent}`);
          const parentModel = spec.fields[spec.parent].references!;
          const parent = await findForChange(ctx, parentModel, data[spec.parent] as number, label === parentModel ? label : parentModel).catch((error) => {
            throw isNotFound(error) ? badUserInput(`${spec.parent} ${data[spec.parent]} does not exist`, `input.${spec.parent}`) : error;
          });
          authorize(ctx, spec.action, parent.organizationId);
          const row = await recordChange(ctx, { method: 'CREATE', entityType: typeName, organizationId: parent.organizationId }, async (tx) => {
            await checkReferences(ctx, tx, spec, data, parent.organizationId);
            await spec.check?.(tx, data, null);
            const extra = (await spec.onCreate?.(tx, data, ctx)) ?? {};
            return delegateOf(tx, model).create({ data: { ...data, ...extra }, select: { id: true } });
          });
          return { rowId: row.id };
        },
      }),
    );
  }

  if (operations.includes('update')) {
    const Input = builder.inputType(`Update${typeName}Input`, {
      fields: (t) => ({
        ...target(t),
        ...Object.fromEntries(Object.entries(spec.fields).filter(([name]) => name !== spec.parent).map(([name, field]) => [name, inputField(t, field, false)])),
      }),
    });
    const Payload = payloadType(typeName, 'Update', spec);
    builder.mutationField(`update${typeName}`, (t) =>
      t.field({
        type: Payload,
        args: { input: t.arg({ type: Input, required: true }) },
        resolve: async (_root, args, ctx) => {
          const input = args.input as Record<string, unknown> & { id?: string; rowId?: number };
          const rowId = targetRowId(input, typeName);
          const { [spec.parent]: _parent, ...fields } = spec.fields;
          const data = cleanValues(model, fields, input);
          const row = await findForChange(ctx, model, rowId, label);
          authorize(ctx, spec.action, row.organizationId);
          await recordChange(ctx, { method: 'UPDATE', entityType: typeName, organizationId: row.organizationId }, async (tx) => {
            await checkReferences(ctx, tx, spec, data, row.organizationId);
            await spec.check?.(tx, data, rowId);
            await spec.onUpdate?.(tx, data, rowId);
            return delegateOf(tx, model).update({ where: { id: rowId }, data, select: { id: true } });
          });
          return { rowId };
        },
      }),
    );
  }

  if (operations.includes('delete')) {
    const Input = builder.inputType(`Delete${typeName}Input`, { fields: (t) => target(t) });
    const Payload = deletedPayload(`Delete${typeName}Payload`, typeName);
    builder.mutationField(`delete${typeName}`, (t) =>
      t.field({
        type: Payload,
        args: { input: t.arg({ type: Input, required: true }) },
        resolve: async (_root, args, ctx) => {
          const rowId = targetRowId(args.input, typeName);
          const row = await findForChange(ctx, model, rowId, label);
          authorize(ctx, spec.action, row.organizationId);
          await recordChange(ctx, { method: 'DELETE', entityType: typeName, organizationId: row.organizationId }, async (tx) => {
            await spec.beforeDelete?.(tx, rowId);
            // The board is read before the row goes, so subscribers of that board hear of it.
            return delegateOf(tx, model).delete({ where: { id: rowId }, select: { id: true, ...(isOnBoard(model) ? boardSelect(model) : {}) } });
          });
          return { rowId };
        },
      }),
    );
  }
}

export interface ReorderSpec {
  model: OrganizationScopedModel;
  /** Mutation name, e.g. `reorderSlides`. */
  name: string;
  /** The parent whose children are ordered, e.g. `dataStreamId` of model DataStream. */
  parentField: string;
  parentModel: OrganizationScopedModel;
  label: string;
  action: Action;
}

/** Adds a mutation that takes the complete ordered list of a parent's children and applies it atomically. */
export function defineReorderMutation(spec: ReorderSpec): void {
  const Input = builder.inputType(`${spec.name[0].toUpperCase()}${spec.name.slice(1)}Input`, {
    fields: (t) => ({
      [spec.parentField]: t.int({ required: true, description: `Row id of the ${spec.parentModel}.` }),
      ids: t.intList({ required: true, description: 'Row ids of all its children, in the new order.' }),
    }),
  });
  builder.mutationField(spec.name, (t) =>
    t.prismaField({
      type: [spec.model as never],
      description: `Sets the order of every ${spec.label.toLowerCase()} of one ${spec.parentModel}; the list must hold each exactly once.`,
      args: { input: t.arg({ type: Input, required: true }) },
      resolve: async (query, _root, args, ctx) => {
        const input = args.input as Record<string, unknown> & { ids: number[] };
        const parentId = input[spec.parentField] as number;
        const parent = await findForChange(ctx, spec.parentModel, parentId, spec.parentModel);
        authorize(ctx, spec.action, parent.organizationId);
        const rows = delegateOf(prisma(), spec.model);
        await recordChange(ctx, { method: 'UPDATE', entityType: spec.parentModel, organizationId: parent.organizationId, event: 'REORDERED' }, async (tx) => {
          // Read inside the transaction, so a child added meanwhile cannot slip past the check.
          const children = (await delegateOf(tx, spec.model).findMany({ where: { [spec.parentField]: parentId }, select: { id: true } })) as { id: number }[];
          const expected = new Set(children.map((child) => child.id));
          if (input.ids.length !== expected.size || new Set(input.ids).size !== input.ids.length || !input.ids.every((id) => expected.has(id))) {
            throw badUserInput(`ids must list each ${spec.label.toLowerCase()} of ${spec.parentModel} ${parentId} exactly once`, 'input.ids');
          }
          for (const [index, id] of input.ids.entries()) await delegateOf(tx, spec.model).update({ where: { id }, data: { order: index + 1 } });
          return { id: parentId };
        });
        return rows.findMany({ ...query, where: { [spec.parentField]: parentId }, orderBy: [{ order: 'asc' }, { id: 'asc' }] }) as never;
      },
    }),
  );
}
