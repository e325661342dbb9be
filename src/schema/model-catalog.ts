import type { ModelName } from '../auth/tenancy.js';
import { prisma, type Prisma } from '../db/index.js';
import { getDatamodel } from '../generated/pothos-types.js';

/** A scalar column of a model: its name in the database and how Prisma types it. */
export interface Column {
  name: string;
  type: string;
  kind: 'scalar' | 'enum';
  isRequired: boolean;
  isList: boolean;
}

/** How the rows of a related model join a parent row: `child.childColumn = parent.parentColumn`. */
export interface Join {
  target: ModelName;
  toMany: boolean;
  isRequired: boolean;
  parentColumn: string;
  childColumn: string;
}

export interface ModelTable {
  table: string;
  columns: Map<string, Column>;
  joins: Map<string, Join>;
}

interface RuntimeModel {
  dbName: string | null;
  fields: { name: string; dbName?: string | null }[];
}

/**
 * Tables, columns and joins of every model, from the two descriptions Prisma generates: Pothos's
 * datamodel has the relations and required flags, the client's runtime model the database names
 * (`@map`); the generated client keeps the latter only on the instance.
 */
export function buildCatalog(client: Prisma): Map<ModelName, ModelTable> {
  const runtime = (client as unknown as { _runtimeDataModel?: { models: Record<string, RuntimeModel> } })
    ._runtimeDataModel;
  if (!runtime)
    throw new Error('the Prisma client has no runtime data model: read plans need its table and column names');
  const models = getDatamodel().datamodel.models;
  const dbName = (model: string, field: string) =>
    runtime.models[model].fields.find((entry) => entry.name === field)?.dbName ?? field;
  const idColumn = (model: string) => dbName(model, models[model].fields.find((field) => field.isId)?.name ?? 'id');
  const catalog = new Map<ModelName, ModelTable>();
  for (const [model, { fields }] of Object.entries(models)) {
    const columns = new Map<string, Column>();
    const joins = new Map<string, Join>();
    for (const field of fields) {
      if (field.kind === 'scalar' || field.kind === 'enum') {
        columns.set(field.name, {
          name: dbName(model, field.name),
          type: field.type,
          kind: field.kind,
          isRequired: field.isRequired,
          isList: field.isList,
        });
        continue;
      }
      const from = field.relationFromFields ?? [];
      if (from.length === 1) {
        joins.set(field.name, {
          target: field.type as ModelName,
          toMany: false,
          isRequired: field.isRequired,
          parentColumn: dbName(model, from[0]),
          childColumn: idColumn(field.type),
        });
        continue;
      }
      // The other side of a one-to-many relation holds the foreign key; implicit many-to-many has none and is left out.
      const back = models[field.type].fields.find(
        (other) =>
          other.relationName === field.relationName && other !== field && other.relationFromFields?.length === 1,
      );
      if (!back) continue;
      joins.set(field.name, {
        target: field.type as ModelName,
        toMany: field.isList,
        isRequired: field.isRequired,
        parentColumn: idColumn(model),
        childColumn: dbName(field.type, back.relationFromFields![0]),
      });
    }
    catalog.set(model as ModelName, { table: runtime.models[model].dbName ?? model, columns, joins });
  }
  return catalog;
}

let catalog: Map<ModelName, ModelTable> | undefined;

/** The catalog of the process's Prisma client, built on first use: read plans and one-statement writes share it. */
export function modelCatalog(): Map<ModelName, ModelTable> {
  catalog ??= buildCatalog(prisma());
  return catalog;
}
