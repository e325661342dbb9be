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
import {
  relationTenancy,
  tenancyWhere,
  visibleOrganizations,
  visibleRowsWhere,
  type ModelName,
} from '../auth/tenancy.js';
import { principalOf, type Context } from '../schema/context.js';
import type { Column, ModelTable } from '../schema/model-catalog.js';
import { authScopesOf, type ReadPlanExtension } from './extensions.js';
import { collectFields, subfields, type SelectionScope } from './selection.js';
import {
  allOf,
  base64Of,
  columnOf,
  isoTimestamp,
  jsonArray,
  jsonLiteral,
  jsonObject,
  jsonString,
  orNull,
  parameter,
  quoted,
  rowArray,
  sql,
  statementOf,
  tableOf,
  type SQL,
} from './sql.js';
import { globalIdParts } from './identifiers.js';
import { pastCursor, windowOf, type PageArgs, type Window } from './pages.js';
import { Slot } from './template.js';
import { orderKeys, orderSql, Unplannable, whereSql, type WhereScope } from './where.js';

/** One statement answering a whole query operation: a column of JSON text per root response key. */
export interface Statement {
  sql: string;
  values: unknown[];
  keys: string[];
}

interface PlanScope extends WhereScope, SelectionScope {
  context: Context;
}

/** A page of rows of `model`: the condition over an alias, Prisma's order, the window and the rows skipped before it. */
interface Page {
  model: ModelName;
  where(alias: SQL): SQL;
  orderBy: unknown;
  window: Window;
  offset: number;
  /**
   * Prisma pages a relation in memory, per parent row, from the cursor row's place among that
   * parent's rows: a cursor row that is not among them gives an empty page. A root list pages in SQL.
   */
  cursorAmongRows: boolean;
}

type Rows = ReturnType<Planner['rows']>;

/** Pothos's cursor of a row id, as JSON text: "GPC:" and the id as a tagged number. */
const cursorOfId = (id: SQL) => quoted(base64Of('GPC:N:', id));

/** How a connection's lists and cursors read its page; `wrap` goes around the connection's JSON. */
interface PageReader {
  /** JSON array text of `element` for each row of the page. */
  list(element: (row: SQL) => SQL): SQL;
  /** JSON text of the page's first or last row's cursor, `null` for an empty page: a reader for cursors has it. */
  cursor?(last: boolean): SQL;
  wrap(json: SQL): SQL;
}

// biome-ignore lint/suspicious/noExplicitAny: graphql-js types extensions as unknown; Pothos's entries here are its own untyped shapes
type Extensions = Record<string, any> | undefined | null;
const planOf = (extensions: Extensions) => extensions?.readPlan as ReadPlanExtension | undefined;

function checkNoScopes(extensions: Extensions, what: string): void {
  if (authScopesOf(extensions)) throw new Unplannable(`${what} has auth scopes`);
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
    throw new Unplannable(`bad input, for the resolvers to report: ${(error as Error).message}`);
  }
}

/** JSON text of an exposed column, as the field's scalar serializes it. */
function scalarJson(type: GraphQLOutputType, column: Column | undefined, value: SQL): SQL {
  const nonNull = isNonNullType(type);
  const inner = nonNull ? type.ofType : type;
  if (!column || (nonNull && !column.isRequired)) throw new Unplannable('nullable column behind a non-null field');
  let json: SQL;
  if (isListType(inner)) {
    if (!column.isList || !['Int', 'Float', 'String', 'Boolean'].includes(getNamedType(inner).name))
      throw new Unplannable('list');
    json = jsonString(value);
  } else if (isEnumType(inner)) {
    json = jsonString(value);
  } else {
    switch (inner.name) {
      case 'Int':
      case 'Float':
      case 'Boolean':
      case 'JSON':
        json = sql`${value}::text`;
        break;
      case 'String':
        json = jsonString(value);
        break;
      case 'ID':
        json = jsonString(sql`${value}::text`);
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
  object(type: GraphQLObjectType, nodes: readonly FieldNode[], model: ModelName, alias: SQL): SQL {
    checkNoScopes(type.extensions, type.name);
    const fields = subfields(this.scope, type, nodes);
    return jsonObject(
      [...fields].map(([key, selected]): [string, SQL] => [key, this.field(type, selected, model, alias)]),
    );
  }

  private field(type: GraphQLObjectType, nodes: FieldNode[], model: ModelName, alias: SQL): SQL {
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
    if (plan && 'visibleOrganizationId' in plan) return this.visibleOrganizationId(column(plan.visibleOrganizationId));
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
    const args = attempt(() => getArgumentValues(definition, nodes[0], this.scope.variables));
    // The cursor is the planner's (windowOf): the field's `query` only limits it (withCursor), which the join does.
    const { after: _after, before: _before, ...withoutCursor } = args;
    const query = attempt(() => {
      const nested = (raw: unknown) =>
        raw === true ? {} : typeof raw === 'function' ? raw(withoutCursor, this.scope.context) : raw;
      const selection = extensions.pothosPrismaSelect(
        withoutCursor,
        this.scope.context,
        nested,
        () => new Map([['edges', {}]]),
      );
      return (selection?.select ?? selection?.include)?.[relation];
    });
    if (query === undefined || typeof query?.then === 'function')
      throw new Unplannable(`relation ${relation} is loaded apart`);
    // biome-ignore lint/suspicious/noExplicitAny: Prisma arguments as Pothos planned them; where.ts checks what it translates
    return { args: args as PageArgs, query: (query === true ? {} : query) as Record<string, any> };
  }

  /**
   * How `relation` reaches rows from a row of `model` under `alias`: the join, and the condition on
   * the rows it reaches, with the relation's own `where` and the join's tenancy (`relationTenancy`).
   */
  private join(model: ModelName, relation: string, alias: SQL, where?: Record<string, unknown>) {
    const join = this.table(model).joins.get(relation);
    if (!join) throw new Unplannable(`relation ${relation}`);
    const tenancy = relationTenancy(model, relation, principalOf(this.scope.context));
    const reached = { oneRow: !join.toMany };
    const conditions = (child: SQL) =>
      allOf([
        sql`${columnOf(child, join.childColumn)} = ${columnOf(alias, join.parentColumn)}`,
        whereSql(this.scope, join.target, child, where, reached),
        tenancy && !carries(where, tenancy) ? whereSql(this.scope, join.target, child, tenancy, reached) : sql.true,
      ]);
    return { join, tenancy, conditions };
  }

  /**
   * An organization's id column as its resolver answers it (visibleOrganizationId): null where the
   * caller is not a member. From the caller's organizations, without reading the organization's row
   * (its foreign key keeps it there): that read was a seventh of a REST list of 100 boards.
   */
  private visibleOrganizationId(id: SQL): SQL {
    const organizations = visibleOrganizations(principalOf(this.scope.context));
    const json = sql`${id}::text`;
    return orNull(
      organizations ? sql`CASE WHEN ${id} = ANY(${parameter(organizations, 'int[]')}) THEN ${json} END` : json,
    );
  }

  /**
   * A relation, joined with every condition its field carries (its `where`, order and page) and the
   * tenancy of each join (`relationTenancy`): the rows it reaches are limited to the caller's
   * organizations unless the ownership paths prove they stay in the parent row's.
   */
  private relation(definition: GraphQLField<unknown, unknown>, nodes: FieldNode[], model: ModelName, alias: SQL): SQL {
    const extensions = definition.extensions as NonNullable<Extensions>;
    const plan = planOf(extensions);
    const loaded = plan && 'relation' in plan;
    const relation: string = loaded ? plan.relation : extensions.pothosPrismaRelationField.name;
    // A resolver of the field's own decides what it answers; only the planned forms are translated.
    if (extensions.pothosPrismaFallback && !(plan && 'pageOfParent' in plan))
      throw new Unplannable(`relation ${relation} has a resolver`);
    const { args, query } = loaded ? { args: {}, query: {} } : this.relationQuery(definition, nodes, relation);
    const { where, orderBy, take, skip, ...rest } = query;
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
        sql`(SELECT ${this.object(named, nodes, join.target, child)} FROM ${tableOf(target.table)} ${child} WHERE ${conditions(child)})`,
      );
    }
    if (!named.getFields().edges) throw new Unplannable(`relation ${relation}`);
    const window = windowOf(args);
    // Pothos asks one row more than the page to learn whether another follows, from the end when backward.
    if (take !== (window.size + 1) * (window.last ? -1 : 1) || (skip ?? 0) !== 0)
      throw new Unplannable(`relation ${relation} pages otherwise`);
    return this.connection(named, nodes, {
      model: join.target,
      where: conditions,
      orderBy,
      window,
      offset: 0,
      cursorAmongRows: true,
    });
  }

  /** A Relay connection over a page: `totalCount`, `pageInfo`, `edges` with `node` and `cursor`, and `nodes`. */
  connection(type: GraphQLObjectType, nodes: readonly FieldNode[], page: Page): SQL {
    const table = this.table(page.model);
    const rows = this.rows(page);
    const idOf = (row: SQL) => columnOf(row, table.columns.get('id')!.name);
    const cursorOf = (row: SQL) => cursorOfId(idOf(row));
    const typeOf = (field: string) => getNamedType(type.getFields()[field].type) as GraphQLObjectType;
    const fields = [...subfields(this.scope, type, nodes)];
    const asksCursor = fields.some(
      ([, selected]) =>
        selected[0].name.value === 'pageInfo' &&
        [...subfields(this.scope, typeOf('pageInfo'), selected).values()].some((inner) =>
          ['startCursor', 'endCursor'].includes(inner[0].name.value),
        ),
    );
    const reader = asksCursor ? this.pageOnce(rows, idOf) : this.pageByList(rows);
    const entries = fields.map(([key, selected]): [string, SQL] => {
      const name = selected[0].name.value;
      if (name === '__typename') return [key, jsonLiteral(type.name)];
      const counted = this.scope.alias();
      if (name === 'totalCount')
        return [key, sql`(SELECT count(*) FROM ${tableOf(table.table)} ${counted} WHERE ${page.where(counted)})::text`];
      if (name === 'edges') return [key, this.edges(typeOf('edges'), selected, page.model, reader, cursorOf)];
      if (name === 'nodes') return [key, reader.list((row) => this.object(typeOf('nodes'), selected, page.model, row))];
      if (name === 'pageInfo') return [key, this.pageInfo(typeOf('pageInfo'), selected, rows, reader)];
      throw new Unplannable(`${type.name}.${name}`);
    });
    return reader.wrap(jsonObject(entries));
  }

  /**
   * The rows of a page as SQL: those of the page's condition, past the cursor row when there is one,
   * in the page's order (turned around for a backward page), the window's size after the offset
   * (and the cursor row, which Prisma skips); and whether rows follow the window (Pothos asks one more).
   */
  private rows(page: Page) {
    const table = this.table(page.model);
    const { window } = page;
    const keys = orderKeys(table, page.orderBy);
    const skip = page.offset + (window.cursor === undefined ? 0 : 1);
    // One parameter, however many times the condition is written.
    const cursor = window.cursor === undefined ? undefined : parameter(window.cursor, 'int');
    const condition = (alias: SQL) => {
      if (cursor === undefined) return page.where(alias);
      // A cursor of a row the caller may not see names no row: an empty page (cursorOf in the schema).
      const row = this.scope.alias();
      const visible = whereSql(this.scope, page.model, row, tenancyWhere(page.model, principalOf(this.scope.context)));
      const past = pastCursor(alias, row, keys, window.backward);
      const among = page.cursorAmongRows ? page.where(row) : sql.true;
      const cursorRow = allOf([sql`${columnOf(row, 'id')} = ${cursor}`, visible, among, past]);
      return allOf([page.where(alias), sql`EXISTS (SELECT 1 FROM ${tableOf(table.table)} ${row} WHERE ${cursorRow})`]);
    };
    const pageRows = (alias: SQL) =>
      sql`FROM ${tableOf(table.table)} ${alias} WHERE ${condition(alias)} ORDER BY ${orderSql(alias, keys, window.backward)} LIMIT ${sql.literal(window.size)} OFFSET ${sql.literal(skip)}`;
    return {
      window,
      keys,
      /** `FROM`, `WHERE`, `ORDER BY` and `LIMIT` of the page's rows, as a query fetches them (from the end when backward). */
      pageRows,
      select: (alias: SQL) => sql`SELECT * ${pageRows(alias)}`,
      more: (alias: SQL) =>
        sql`EXISTS (SELECT 1 FROM ${tableOf(table.table)} ${alias} WHERE ${condition(alias)} OFFSET ${sql.literal(skip + window.size)})`,
    };
  }

  private edges(
    type: GraphQLObjectType,
    nodes: readonly FieldNode[],
    model: ModelName,
    reader: PageReader,
    cursorOf: (row: SQL) => SQL,
  ): SQL {
    return reader.list((row) =>
      jsonObject(
        [...subfields(this.scope, type, nodes)].map(([key, selected]): [string, SQL] => {
          const name = selected[0].name.value;
          if (name === '__typename') return [key, jsonLiteral(type.name)];
          if (name === 'cursor') return [key, cursorOf(row)];
          if (name === 'node')
            return [
              key,
              this.object(getNamedType(type.getFields().node.type) as GraphQLObjectType, selected, model, row),
            ];
          throw new Unplannable(`${type.name}.${name}`);
        }),
      ),
    );
  }

  /**
   * An array of `element` for each row of a page, in the page's order. A forward page's rows are
   * its query's own (PostgreSQL builds the elements of the rows its LIMIT keeps, after the sort);
   * a backward page, fetched from the end, is turned around by a query around it.
   */
  private eachRow(rows: Rows, element: (row: SQL) => SQL): SQL {
    const row = this.scope.alias();
    if (!rows.window.backward) return rowArray(element(row), rows.pageRows(row));
    const inner = this.scope.alias();
    return rowArray(element(row), sql`FROM (${rows.select(inner)}) ${row} ORDER BY ${orderSql(row, rows.keys)}`);
  }

  /** A page whose lists each read its rows: nothing else reads them. */
  private pageByList(rows: Rows): PageReader {
    return { list: (element) => jsonArray(this.eachRow(rows, element)), wrap: (json) => json };
  }

  /**
   * A page read once for its lists and its first and last cursors: one query gathers each row's id
   * and list elements into a two-dimensional array, which they read. A cursor read by a query of its
   * own read and sorted the page again: 1.2 of the 25.9 M instructions of case a2's statement, a
   * tenth of its execution time (issue 39).
   */
  private pageOnce(rows: Rows, idOf: (row: SQL) => SQL): PageReader {
    const read = this.scope.alias();
    const cells = columnOf(read, 'page');
    // Ids, not cursors: only the first and the last row's become cursors.
    const columns = [(row: SQL) => sql`${idOf(row)}::text`];
    return {
      list(element) {
        columns.push(element);
        const column = sql.literal(columns.length);
        return jsonArray(sql`${cells}[:][${column}:${column}]`);
      },
      cursor: (last) => orNull(cursorOfId(sql`${cells}[${last ? sql`array_upper(${cells}, 1)` : sql`1`}][1]`)),
      // OFFSET 0: PostgreSQL would otherwise write the array's query into each of its uses.
      wrap: (json) => {
        const cellsOf = (row: SQL) => columns.map((column) => column(row));
        const page = this.eachRow(rows, (row) => sql`ARRAY[${sql.join(cellsOf(row), ', ')}]`);
        return sql`(SELECT ${json} FROM (SELECT ${page} AS ${sql.identifier('page')} OFFSET 0) ${read})`;
      },
    };
  }

  /** Pothos's `pageInfo` (wrapConnectionResult): what the arguments say, whether rows follow, and the edges' first and last cursors. */
  private pageInfo(type: GraphQLObjectType, nodes: readonly FieldNode[], rows: Rows, reader: PageReader): SQL {
    const { window } = rows;
    const full = () => sql`CASE WHEN ${rows.more(this.scope.alias())} THEN 'true' ELSE 'false' END`;
    const entries = [...subfields(this.scope, type, nodes)].map(([key, selected]): [string, SQL] => {
      switch (selected[0].name.value) {
        case '__typename':
          return [key, jsonLiteral(type.name)];
        case 'hasNextPage':
          return [key, window.before ? sql`'true'` : window.last ? sql`'false'` : full()];
        case 'hasPreviousPage':
          return [key, window.after ? sql`'true'` : window.backward ? full() : sql`'false'`];
        case 'startCursor':
          return [key, reader.cursor!(false)];
        case 'endCursor':
          return [key, reader.cursor!(true)];
        default:
          throw new Unplannable(`${type.name}.${selected[0].name.value}`);
      }
    });
    return jsonObject(entries);
  }

  /**
   * The row a global id names (`node(id:)`), as the resolvers find it (loadNodes): a row of a node
   * type the caller may see, else null; a malformed id is theirs to refuse. Its row id is a parameter.
   */
  private node(nodes: FieldNode[], globalId: unknown): SQL {
    const parts = globalIdParts(globalId instanceof Slot ? globalId.sample : globalId);
    if (!parts) throw new Unplannable('bad input, for the resolvers to report: a malformed global id');
    const type = this.schema.getType(parts.typename);
    const isNode = isObjectType(type) && type.getInterfaces().some((face) => face.name === 'Node');
    const model = isNode ? ((type.extensions as Extensions)?.pothosPrismaModel as ModelName | undefined) : undefined;
    if (!isNode || !model) return sql`'null'`;
    const id = globalId instanceof Slot ? globalId.as((value) => globalIdParts(value)!.id) : parts.id;
    const row = this.scope.alias();
    // visibleRowsWhere with a slot for the id: whereSql sends it as a parameter.
    const where = whereSql(
      this.scope,
      model,
      row,
      visibleRowsWhere(model, principalOf(this.scope.context), id as number),
      { oneRow: true },
    );
    return orNull(
      sql`(SELECT ${this.object(type, nodes, model, row)} FROM ${tableOf(this.table(model).table)} ${row} WHERE ${where})`,
    );
  }

  /** A root field: a connection of a model's rows or one row, limited as its resolver limits them. */
  root(nodes: FieldNode[]): SQL {
    const query = this.schema.getQueryType()!;
    const name = nodes[0].name.value;
    if (name === '__typename') return jsonLiteral(query.name);
    const definition = query.getFields()[name];
    // Introspection (__schema, __type) is the executor's.
    if (!definition) throw new Unplannable(`Query.${name} is not a field of the type`);
    checkNoScopes(definition.extensions as Extensions, `Query.${name}`);
    const plan = planOf(definition.extensions as Extensions);
    if (plan && 'nodes' in plan) {
      const { id, ids } = attempt(() => getArgumentValues(definition, nodes[0], this.scope.variables));
      if (plan.nodes === 'one') return this.node(nodes, id);
      const list = ids instanceof Slot ? (ids.sample as unknown[]).map((_, i) => ids.item(i)) : (ids as unknown[]);
      const items = list.length
        ? sql.join(
            list.map((one) => this.node(nodes, one)),
            ` || ',' || `,
          )
        : sql`''`;
      return sql`'[' || ${items} || ']'`;
    }
    const type = getNamedType(definition.type);
    if (!plan || !('root' in plan) || !isObjectType(type)) throw new Unplannable(`Query.${name} has a resolver`);
    const args = attempt(() => getArgumentValues(definition, nodes[0], this.scope.variables));
    const find = attempt(() => plan.findArgs(args, this.scope.context));
    if (plan.root === 'single') {
      const row = this.scope.alias();
      const where = whereSql(this.scope, plan.model, row, find.where, { oneRow: true });
      return sql`(SELECT ${this.object(type, nodes, plan.model, row)} FROM ${tableOf(this.table(plan.model).table)} ${row} WHERE ${where})`;
    }
    return this.connection(type, nodes, {
      model: plan.model,
      where: (alias) => whereSql(this.scope, plan.model, alias, find.where),
      orderBy: find.orderBy,
      window: windowOf(args),
      offset: integer(find.skip ?? 0, 0, Number.MAX_SAFE_INTEGER),
      cursorAmongRows: false,
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
  scope: Omit<PlanScope, 'alias'>,
): Statement {
  if (operation.operation !== 'query') throw new Unplannable('not a query');
  let aliases = 0;
  const planScope: PlanScope = { ...scope, alias: () => sql.identifier(`r${aliases++}`) };
  const planner = new Planner(schema, planScope);
  const fields = collectFields(planScope, schema.getQueryType()!, [operation.selectionSet]);
  const keys = [...fields.keys()];
  const columns = [...fields.values()].map((nodes, i) => sql`${planner.root(nodes)} AS ${sql.identifier(`c${i}`)}`);
  const { text, values } = statementOf(sql`SELECT ${sql.join(columns, ', ')}`);
  return { sql: text, values, keys };
}
