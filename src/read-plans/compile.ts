import {
  getArgumentValues,
  getNamedType,
  isEnumType,
  isListType,
  isNonNullType,
  isObjectType,
  type FieldNode,
  type GraphQLField,
  type GraphQLObjectType,
  type GraphQLOutputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import { isDeepStrictEqual } from 'node:util';
import { relationTenancy, type ModelName } from '../auth/tenancy.js';
import { principalOf, type Context } from '../schema/context.js';
import { defaultPageSize, maxPageSize } from '../schema/pagination.js';
import type { Column, ModelTable } from './catalog.js';
import type { ReadPlanExtension } from './extensions.js';
import { collectFields, type SelectionScope } from './selection.js';
import {
  base64Of,
  columnOf,
  isoTimestamp,
  jsonArray,
  jsonLiteral,
  jsonObject,
  jsonString,
  orNull,
  Parameters,
  quote,
  quoted,
} from './sql.js';
import { allOf, orderSql, Unplannable, whereSql, type WhereScope } from './where.js';

/** One statement answering a whole query operation: a column of JSON text per root response key. */
export interface Statement {
  sql: string;
  values: unknown[];
  keys: string[];
}

interface PlanScope extends WhereScope, SelectionScope {
  context: Context;
}

/** A page of rows of `model`: the condition over an alias, Prisma's order, and the window. */
interface Page {
  model: ModelName;
  where(alias: string): string;
  orderBy: unknown;
  limit: number;
  offset: number;
}

// biome-ignore lint/suspicious/noExplicitAny: graphql-js types extensions as unknown; Pothos's entries here are its own untyped shapes
type Extensions = Record<string, any> | undefined | null;
const planOf = (extensions: Extensions) => extensions?.readPlan as ReadPlanExtension | undefined;

// Scope checks run in resolvers; a field or type that has any keeps them by staying with the executor.
function checkNoScopes(extensions: Extensions, what: string): void {
  const options = extensions?.pothosOptions;
  if (options?.authScopes || options?.grantScopes) throw new Unplannable(`${what} has auth scopes`);
}

/** Whether a relation's own `where` already holds the tenancy condition (the schema's `pageInTenancy`). */
function carries(where: Record<string, unknown> | undefined, tenancy: object): boolean {
  if (!where) return false;
  const all = Array.isArray(where.AND) ? where.AND : [];
  return isDeepStrictEqual(where, tenancy) || all.some((part) => isDeepStrictEqual(part, tenancy));
}

function integer(value: unknown, least: number, most: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < least || value > most)
    throw new Unplannable(`page bound ${value}`);
  return value;
}

/** Errors of argument checks belong to the executor, which reports them; the planner just steps aside. */
function attempt<T>(work: () => T): T {
  try {
    return work();
  } catch (error) {
    if (error instanceof Unplannable) throw error;
    throw new Unplannable(String(error));
  }
}

/** JSON text of an exposed column, as the field's scalar serializes it. */
function scalarJson(type: GraphQLOutputType, column: Column | undefined, value: string): string {
  const nonNull = isNonNullType(type);
  const inner = nonNull ? type.ofType : type;
  if (!column || (nonNull && !column.isRequired)) throw new Unplannable('nullable column behind a non-null field');
  let json: string;
  if (isListType(inner)) {
    if (!column.isList || !['Int', 'Float', 'String', 'Boolean'].includes(getNamedType(inner).name))
      throw new Unplannable('list');
    json = `to_json(${value})::text`;
  } else if (isEnumType(inner)) {
    json = jsonString(value);
  } else {
    switch (inner.name) {
      case 'Int':
      case 'Float':
      case 'Boolean':
      case 'JSON':
        json = `${value}::text`;
        break;
      case 'String':
        json = jsonString(value);
        break;
      case 'ID':
        json = jsonString(`${value}::text`);
        break;
      case 'DateTime':
        json = quoted(isoTimestamp(value));
        break;
      default:
        throw new Unplannable(`scalar ${inner.name}`);
    }
  }
  return column.isRequired ? json : orNull(json);
}

class Planner {
  constructor(
    private readonly schema: GraphQLSchema,
    private readonly scope: PlanScope,
  ) {}

  private table(model: ModelName): ModelTable {
    return this.scope.catalog.get(model)!;
  }

  /** A JSON object of the fields `nodes` select on a row of `model` under `alias`. */
  object(type: GraphQLObjectType, nodes: readonly FieldNode[], model: ModelName, alias: string): string {
    checkNoScopes(type.extensions, type.name);
    const fields = collectFields(
      this.scope,
      type,
      nodes.map((node) => node.selectionSet),
    );
    return jsonObject(
      [...fields].map(([key, selected]): [string, string] => [key, this.field(type, selected, model, alias)]),
    );
  }

  private field(type: GraphQLObjectType, nodes: FieldNode[], model: ModelName, alias: string): string {
    const name = nodes[0].name.value;
    if (name === '__typename') return jsonLiteral(type.name);
    const definition = type.getFields()[name];
    if (!definition) throw new Unplannable(`${type.name}.${name} is not a field of the type`);
    const extensions = definition.extensions as Extensions;
    checkNoScopes(extensions, `${type.name}.${name}`);
    const table = this.table(model);
    const column = (field: string) => columnOf(alias, table.columns.get(field)?.name ?? field);
    const plan = planOf(extensions);
    if (plan && 'value' in plan) return orNull(jsonString(plan.value(column)));
    if (plan && 'visibleId' in plan) return this.visibleId(model, plan.visibleId, alias);
    const exposed = extensions?.pothosExposedField as string | undefined;
    if (exposed) return scalarJson(definition.type, table.columns.get(exposed), column(exposed));
    const identified = planOf(type.extensions as Extensions);
    if (name === 'id' && identified && 'globalIdField' in identified)
      return quoted(base64Of(`${type.name}:`, column(identified.globalIdField)));
    if (extensions?.pothosPrismaRelationField || (plan && 'relation' in plan))
      return this.relation(definition, nodes, model, alias);
    throw new Unplannable(`${type.name}.${name} has a resolver`);
  }

  /**
   * The Prisma arguments Pothos's own planning gives a relation (order, page, filter), with the
   * field's `query` evaluated as Pothos evaluates it: a function of the arguments and the context.
   */
  private relationQuery(definition: GraphQLField<unknown, unknown>, nodes: FieldNode[], relation: string) {
    const extensions = definition.extensions as NonNullable<Extensions>;
    const query = attempt(() => {
      const args = getArgumentValues(definition, nodes[0], this.scope.variables);
      const nested = (raw: unknown) =>
        raw === true ? {} : typeof raw === 'function' ? raw(args, this.scope.context) : raw;
      const selection = extensions.pothosPrismaSelect(args, this.scope.context, nested, () => new Map([['edges', {}]]));
      return (selection?.select ?? selection?.include)?.[relation];
    });
    if (query === undefined || typeof query?.then === 'function')
      throw new Unplannable(`relation ${relation} is loaded apart`);
    // biome-ignore lint/suspicious/noExplicitAny: Prisma arguments as Pothos planned them; where.ts checks what it translates
    return (query === true ? {} : query) as Record<string, any>;
  }

  /**
   * How `relation` reaches rows from a row of `model` under `alias`: the join, and the condition on
   * the rows it reaches, with the relation's own `where` and the join's tenancy (`relationTenancy`).
   */
  private join(model: ModelName, relation: string, alias: string, where?: Record<string, unknown>) {
    const join = this.table(model).joins.get(relation);
    if (!join) throw new Unplannable(`relation ${relation}`);
    const tenancy = relationTenancy(model, relation, principalOf(this.scope.context));
    const conditions = (child: string) =>
      allOf([
        `${columnOf(child, join.childColumn)} = ${columnOf(alias, join.parentColumn)}`,
        whereSql(this.scope, join.target, child, where),
        tenancy && !carries(where, tenancy) ? whereSql(this.scope, join.target, child, tenancy) : 'TRUE',
      ]);
    return { join, tenancy, conditions };
  }

  /** The row id a to-one relation reaches, or null where the caller may not see that row. */
  private visibleId(model: ModelName, relation: string, alias: string): string {
    const { join, conditions } = this.join(model, relation, alias);
    const child = this.scope.alias();
    const id = columnOf(child, join.childColumn);
    return orNull(
      `(SELECT ${id}::text FROM ${quote(this.table(join.target).table)} ${child} WHERE ${conditions(child)})`,
    );
  }

  /**
   * A relation, joined with every condition its field carries (its `where`, order and page) and the
   * tenancy of each join (`relationTenancy`): the rows it reaches are limited to the caller's
   * organizations unless the ownership paths prove they stay in the parent row's.
   */
  private relation(
    definition: GraphQLField<unknown, unknown>,
    nodes: FieldNode[],
    model: ModelName,
    alias: string,
  ): string {
    const extensions = definition.extensions as NonNullable<Extensions>;
    const plan = planOf(extensions);
    const loaded = plan && 'relation' in plan;
    const relation: string = loaded ? plan.relation : extensions.pothosPrismaRelationField.name;
    // A resolver of the field's own decides what it answers; only the planned forms are translated.
    if (extensions.pothosPrismaFallback) throw new Unplannable(`relation ${relation} has a resolver`);
    const { where, orderBy, take, skip, ...rest } = loaded ? {} : this.relationQuery(definition, nodes, relation);
    const { join, tenancy, conditions } = this.join(model, relation, alias, where);
    const named = getNamedType(definition.type);
    if (Object.keys(rest).length || !isObjectType(named)) throw new Unplannable(`relation ${relation}`);
    if (!join.toMany) {
      const mayBeNull = !join.isRequired || where !== undefined || tenancy !== undefined;
      if (
        orderBy !== undefined ||
        take !== undefined ||
        skip !== undefined ||
        (isNonNullType(definition.type) && mayBeNull)
      )
        throw new Unplannable(`relation ${relation}`);
      const child = this.scope.alias();
      const target = this.table(join.target);
      return orNull(
        `(SELECT ${this.object(named, nodes, join.target, child)} FROM ${quote(target.table)} ${child} WHERE ${conditions(child)})`,
      );
    }
    if (!named.getFields().edges) throw new Unplannable(`relation ${relation}`);
    // Pothos asks one row more than the page to learn whether another follows.
    const page: Page = {
      model: join.target,
      where: conditions,
      orderBy,
      limit: integer(take, 1, maxPageSize + 1) - 1,
      offset: integer(skip ?? 0, 0, 0),
    };
    return this.connection(named, nodes, page);
  }

  /** A Relay connection over a page: `totalCount`, and `edges` with `node` and `cursor`. */
  connection(type: GraphQLObjectType, nodes: readonly FieldNode[], page: Page): string {
    const { table } = this.table(page.model);
    const entries = [
      ...collectFields(
        this.scope,
        type,
        nodes.map((node) => node.selectionSet),
      ),
    ].map(([key, selected]): [string, string] => {
      const name = selected[0].name.value;
      if (name === '__typename') return [key, jsonLiteral(type.name)];
      const counted = this.scope.alias();
      if (name === 'totalCount')
        return [key, `(SELECT count(*) FROM ${quote(table)} ${counted} WHERE ${page.where(counted)})::text`];
      if (name === 'edges')
        return [key, this.edges(getNamedType(type.getFields().edges.type) as GraphQLObjectType, selected, page)];
      throw new Unplannable(`${type.name}.${name}`);
    });
    return jsonObject(entries);
  }

  private edges(type: GraphQLObjectType, nodes: readonly FieldNode[], page: Page): string {
    const table = this.table(page.model);
    const [inner, row] = [this.scope.alias(), this.scope.alias()];
    const entries = [
      ...collectFields(
        this.scope,
        type,
        nodes.map((node) => node.selectionSet),
      ),
    ].map(([key, selected]): [string, string] => {
      const name = selected[0].name.value;
      if (name === '__typename') return [key, jsonLiteral(type.name)];
      // Pothos's cursor of a row id: "GPC:" and the id as a tagged number.
      if (name === 'cursor') return [key, quoted(base64Of('GPC:N:', columnOf(row, table.columns.get('id')!.name)))];
      if (name === 'node')
        return [
          key,
          this.object(getNamedType(type.getFields().node.type) as GraphQLObjectType, selected, page.model, row),
        ];
      throw new Unplannable(`${type.name}.${name}`);
    });
    const rows = `SELECT * FROM ${quote(table.table)} ${inner} WHERE ${page.where(inner)} ORDER BY ${orderSql(table, inner, page.orderBy)} LIMIT ${page.limit} OFFSET ${page.offset}`;
    return jsonArray(jsonObject(entries), orderSql(table, row, page.orderBy), `(${rows}) ${row}`);
  }

  /** A root field: a connection of a model's rows or one row, limited as its resolver limits them. */
  root(nodes: FieldNode[]): string {
    const query = this.schema.getQueryType()!;
    const name = nodes[0].name.value;
    if (name === '__typename') return jsonLiteral(query.name);
    const definition = query.getFields()[name];
    // Introspection (__schema, __type) is the executor's.
    if (!definition) throw new Unplannable(`Query.${name} is not a field of the type`);
    checkNoScopes(definition.extensions as Extensions, `Query.${name}`);
    const plan = planOf(definition.extensions as Extensions);
    const type = getNamedType(definition.type);
    if (!plan || !('root' in plan) || !isObjectType(type)) throw new Unplannable(`Query.${name} has a resolver`);
    const args = attempt(() => getArgumentValues(definition, nodes[0], this.scope.variables));
    const find = attempt(() => plan.findArgs(args, this.scope.context));
    if (plan.root === 'single') {
      const row = this.scope.alias();
      const where = whereSql(this.scope, plan.model, row, find.where);
      return `(SELECT ${this.object(type, nodes, plan.model, row)} FROM ${quote(this.table(plan.model).table)} ${row} WHERE ${where})`;
    }
    if (args.last != null || args.before != null || args.after != null)
      throw new Unplannable('backward or cursor paging');
    return this.connection(type, nodes, {
      model: plan.model,
      where: (alias) => whereSql(this.scope, plan.model, alias, find.where),
      orderBy: find.orderBy,
      limit: integer(args.first ?? defaultPageSize, 0, maxPageSize),
      offset: integer(find.skip ?? 0, 0, Number.MAX_SAFE_INTEGER),
    });
  }
}

/**
 * Plans a query operation as one SQL statement that builds the whole response in PostgreSQL, the
 * way PostGraphile does, from what Pothos and Prisma already know: exposed columns, relations with
 * the arguments Pothos's planning gives Prisma, and the root fields' own Prisma arguments (tenancy,
 * filters, order). Throws Unplannable for anything else, which the executor then answers.
 */
export function planOperation(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
  scope: Omit<PlanScope, 'params' | 'alias'>,
): Statement {
  if (operation.operation !== 'query') throw new Unplannable('not a query');
  let aliases = 0;
  const params = new Parameters();
  const planScope: PlanScope = { ...scope, params, alias: () => `r${aliases++}` };
  const planner = new Planner(schema, planScope);
  const fields = collectFields(planScope, schema.getQueryType()!, [operation.selectionSet]);
  const keys = [...fields.keys()];
  const columns = [...fields.values()].map((nodes, i) => `${planner.root(nodes)} AS c${i}`);
  return { sql: `SELECT ${columns.join(', ')}`, values: params.values, keys };
}
