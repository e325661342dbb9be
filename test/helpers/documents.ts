import {
  getNamedType,
  getNullableType,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isLeafType,
  isListType,
  isNonNullType,
  isObjectType,
  isUnionType,
  GraphQLNonNull,
  type GraphQLArgument,
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLInterfaceType,
  type GraphQLObjectType,
  type GraphQLSchema,
} from 'graphql';
import { delegateOf } from '../../src/db/delegate.js';
import type { Prisma } from '../../src/db/index.js';
import { graphModels } from './tenancy.js';
import { globalId } from './graphql.js';
import { Draws, type Random } from './properties.js';

// Random query documents generated from the schema itself: every root field whose arguments can be
// made, relations nested several levels, connections with and without pages, filters with every
// operator and and/or/not, orderBy, aliases, named and inline fragments, @include/@skip on
// variables, __typename, totalCount, cursor and pageInfo, pages forward and backward from cursors,
// node/nodes by global ids of every type, and `me`. Values come from the data (pools), so rows of
// every organization are asked for by id, cursor, filter and search; cursors and global ids are
// also malformed or of no row now and then.

/**
 * Values of the data the documents ask with: row ids by model (every organization's), strings,
 * numbers, times, and cursors taken from answers (the caller's own rows and others').
 */
export interface Pools {
  ids: Map<string, number[]>;
  strings: string[];
  numbers: number[];
  times: string[];
  cursors: string[];
}

/** Cursors and global ids no resolver accepts, or naming no row: malformed, of another kind, out of range. */
const badCursors = [
  'bm90IGEgY3Vyc29y',
  '',
  '!!',
  Buffer.from('GPC:S:1').toString('base64'),
  Buffer.from('GPC:N:1.5').toString('base64'),
  Buffer.from('GPC:N:99999999999').toString('base64'),
  Buffer.from('GPC:N:-3').toString('base64'),
];
const badGlobalIds = [
  'xx',
  '',
  globalId('Whiteboard', 'abc'),
  globalId('Whiteboard', 99999999999),
  globalId('PageInfo', 1),
  globalId('Nothing', 1),
];

export interface GeneratedDocument {
  query: string;
  variables: Record<string, unknown>;
}

interface Options {
  /** Relation hops below a root field. */
  maxHops: number;
  /** Fields left out of every selection, as `Type.field` (values that change between two reads). */
  volatile: Set<string>;
}

/** The options of the tenancy property test's documents (and of `npm run plan-coverage`'s). */
export const generationOptions: Options = {
  maxHops: 3,
  // Written by every request of the key (its last use), so two reads of them may differ.
  volatile: new Set(['ApiKey.lastUsedAt', 'ApiKey.updatedAt']),
};

/** The pools of the demo data (with crossOrganizationReferences, addWebhookEndpoints): every model's row ids, and values of its rows. */
export async function poolsOf(prisma: Prisma): Promise<Pools> {
  const ids = new Map<string, number[]>();
  for (const model of graphModels) {
    const rows = await (delegateOf(prisma, model).findMany as (args: object) => Promise<{ id: number }[]>)({
      where: {},
      select: { id: true },
    });
    ids.set(
      model,
      rows.map((row) => row.id),
    );
  }
  const named = [
    ...(await prisma.whiteboard.findMany()),
    ...(await prisma.whiteboardObject.findMany()),
    ...(await prisma.library.findMany()),
    ...(await prisma.slide.findMany()),
  ];
  const users = await prisma.user.findMany();
  const instances = await prisma.whiteboardObjectInstance.findMany();
  return {
    ids,
    strings: [...named.map((row) => row.name), ...users.map((user) => user.email), 'a', '%', '_', '\\', ''],
    numbers: [...instances.flatMap((row) => [row.x, row.width]), 0, -1, 0.5],
    times: [...named.map((row) => row.createdAt.toISOString()), '0999-12-31T00:00:00.000Z', '2030-01-01T00:00:00.000Z'],
    // Filled from the answers as the documents run (harvestCursors).
    cursors: [],
  };
}

/** Keeps some cursors of an answer (edges' and pageInfo's), to page from in later documents. */
export function harvestCursors(pools: Pools, answer: unknown): void {
  const found: string[] = [];
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) for (const item of value) walk(item);
    else if (value && typeof value === 'object')
      for (const [key, inner] of Object.entries(value))
        if (/^(cursor|startCursor|endCursor)$/.test(key) && typeof inner === 'string') found.push(inner);
        else walk(inner);
  };
  walk(answer);
  if (pools.cursors.length < 500) pools.cursors.push(...found.slice(0, 5));
}

const pageArguments = ['first', 'after', 'last', 'before'];

const cursorOf = (id: number) => Buffer.from(`GPC:N:${id}`).toString('base64');

class Generator extends Draws {
  private readonly variableDefinitions: string[] = [];
  readonly variables: Record<string, unknown> = {};
  private readonly fragments = new Map<string, string>();
  private counter = 0;
  /** How often cursors, `last` and pageInfo are asked. */
  private readonly backwards = 0.2;

  constructor(
    private readonly schema: GraphQLSchema,
    random: Random,
    private readonly pools: Pools,
    private readonly options: Options,
  ) {
    super(random);
  }

  private name = (prefix: string) => `${prefix}${this.counter++}`;

  /** A variable of `type` holding `value`, declared on the operation. */
  private variable(type: string, value: unknown): string {
    const name = this.name('v');
    this.variableDefinitions.push(`$${name}: ${type}`);
    this.variables[name] = value;
    return `$${name}`;
  }

  private modelOf(typeName: string): string | undefined {
    const type = this.schema.getType(typeName);
    return (type?.extensions as { pothosPrismaModel?: string } | undefined)?.pothosPrismaModel;
  }

  /** A row id of `model`: mostly one that exists (in any organization), sometimes none. */
  private rowId(model: string | undefined): number {
    const ids = (model && this.pools.ids.get(model)) || [];
    return ids.length && !this.chance(0.1) ? this.pick(ids) : this.integer(1, 5_000);
  }

  /** A global id of any node type: of a row of any organization, of none, or malformed. */
  private globalId(): string {
    if (this.chance(0.05)) return this.pick(badGlobalIds);
    const type = this.pick(this.nodeTypes()).name;
    return globalId(type, this.rowId(this.modelOf(type)));
  }

  /** A cursor: of a row of `model` (any organization's), from an answer, or one no resolver accepts. */
  private cursor(model: string | undefined): string {
    if (this.chance(0.05)) return this.pick(badCursors);
    if (this.pools.cursors.length && this.chance(0.5)) return this.pick(this.pools.cursors);
    return cursorOf(this.rowId(model));
  }

  private anyId(): number {
    return this.rowId(this.pick([...this.pools.ids.keys()]));
  }

  /** The model an argument such as `whiteboardId` or `rowId` names. */
  private modelOfArgument(argument: GraphQLArgument, owner: GraphQLField<unknown, unknown>): string | undefined {
    if (argument.name === 'rowId') return this.modelOf(getNamedType(owner.type).name);
    const stem = argument.name.replace(/Id$/, '');
    const aliases: Record<string, string> = { attribute: 'ClassConfAttribute', highlight: 'WhiteboardHighlight' };
    return aliases[stem] ?? [...this.pools.ids.keys()].find((model) => model.toLowerCase() === stem.toLowerCase());
  }

  /** A value of a leaf input type, from the pools (`part` of a string for contains and startsWith). */
  private value(type: GraphQLInputType, part: boolean): unknown {
    const named = getNamedType(type);
    if (isEnumType(named)) return this.pick(named.getValues()).name;
    switch (named.name) {
      case 'Int':
        return this.chance(0.5) ? this.anyId() : this.integer(-2, 100);
      case 'Float':
        return this.pick(this.pools.numbers);
      case 'Boolean':
        return this.chance(0.5);
      case 'DateTime':
        return this.pick(this.pools.times);
      case 'ID':
        return this.globalId();
      default: {
        const text = this.pick(this.pools.strings);
        return part ? text.slice(0, this.integer(1, 4)) : text;
      }
    }
  }

  /** A value as a GraphQL literal (enum values bare), or now and then as a variable of the type. */
  private literal(value: unknown, type: GraphQLInputType): string {
    if (this.chance(0.3)) return this.variable(String(type), value);
    const named = getNamedType(type);
    const one = (item: unknown) => (isEnumType(named) ? String(item) : JSON.stringify(item));
    return Array.isArray(value) ? `[${value.map(one).join(', ')}]` : one(value);
  }

  /** A filter's comparison of one column: one or two operators. */
  private comparison(type: GraphQLInputType): string {
    const input = getNamedType(type);
    if (!isInputObjectType(input)) return 'null';
    const entries = this.some(Object.values(input.getFields()), 2).map((operator) => {
      const part = ['contains', 'startsWith'].includes(operator.name);
      const value = isListType(getNullableType(operator.type))
        ? Array.from({ length: this.integer(1, 3) }, () => this.value(operator.type, part))
        : this.value(operator.type, part);
      return `${operator.name}: ${this.literal(value, operator.type)}`;
    });
    return `{ ${entries.join(', ')} }`;
  }

  /** A filter input: some columns, and now and then and/or/not around more of them. */
  private filter(type: GraphQLInputType, depth = 0): string {
    const input = getNamedType(type);
    if (!isInputObjectType(input)) return 'null';
    const fields = Object.values(input.getFields());
    const columns = fields.filter((field) => !['and', 'or', 'not'].includes(field.name));
    const parts = this.some(columns, 2).map((column) => `${column.name}: ${this.comparison(column.type)}`);
    for (const combinator of ['and', 'or', 'not'] as const) {
      const field = fields.find((candidate) => candidate.name === combinator);
      if (!field || depth > 1 || !this.chance(0.15)) continue;
      parts.push(
        combinator === 'not'
          ? `not: ${this.filter(field.type, depth + 1)}`
          : `${combinator}: [${Array.from({ length: this.integer(1, 2) }, () => this.filter(field.type, depth + 1)).join(', ')}]`,
      );
    }
    return `{ ${parts.join(', ')} }`;
  }

  private orderBy(type: GraphQLInputType): string {
    const input = getNamedType(type);
    if (!isInputObjectType(input)) return '[]';
    const fieldEnum = getNamedType(input.getFields().field.type);
    if (!isEnumType(fieldEnum)) return '[]';
    const keys = this.some(fieldEnum.getValues(), 2).map(
      (value) => `{ field: ${value.name}, direction: ${this.chance(0.5) ? 'ASC' : 'DESC'} }`,
    );
    return `[${keys.join(', ')}]`;
  }

  /** Arguments of a field, or undefined when a required one cannot be made. */
  private argumentsOf(field: GraphQLField<unknown, unknown>, model: string | undefined): string | undefined {
    const parts: string[] = [];
    const isConnection = !!this.connectionNode(field);
    // Mostly a small page below the root, so nested reads stay within the operation limits.
    const pageSize = () => String(this.chance(0.1) ? this.integer(0, 25) : this.integer(0, 4));
    const makeable = (argument: GraphQLArgument) => ['Int', 'ID', 'String'].includes(getNamedType(argument.type).name);
    if (field.args.some((argument) => isNonNullType(argument.type) && !makeable(argument))) return undefined;
    // Mostly a page forward (first, after) or backward (last, before); now and then any mix, which
    // the resolvers refuse or read their own way (first and last together).
    const direction = this.chance(this.backwards) ? 'backward' : this.chance(0.02) ? 'mixed' : 'forward';
    const cursor = (type: GraphQLInputType) => this.literal(this.cursor(model), type);
    const size = (p: number) => (this.chance(p) ? pageSize() : undefined);
    const page: Record<string, string | undefined> = {};
    for (const argument of field.args) {
      const { name } = argument;
      const wanted = direction === 'mixed' || (direction === 'forward') === ['first', 'after'].includes(name);
      if (!pageArguments.includes(name) || !wanted) continue;
      if (name === 'first' || name === 'last')
        page[name] = size(direction === 'mixed' ? 0.5 : isConnection ? 0.8 : 0.5);
      else
        page[name] = this.chance(direction === 'mixed' ? 0.5 : this.backwards * 2) ? cursor(argument.type) : undefined;
    }
    for (const argument of field.args) {
      const required = isNonNullType(argument.type);
      const named = getNamedType(argument.type);
      let value: string | undefined;
      if (pageArguments.includes(argument.name)) value = page[argument.name];
      else if (argument.name === 'offset')
        value = direction === 'forward' && this.chance(0.2) ? String(this.integer(0, 3)) : undefined;
      else if (argument.name === 'filter') value = this.chance(0.4) ? this.filter(argument.type) : undefined;
      else if (argument.name === 'orderBy') value = this.chance(0.3) ? this.orderBy(argument.type) : undefined;
      else if (named.name === 'Int' && (required || this.chance(0.5))) {
        const id = this.rowId(this.modelOfArgument(argument, field));
        value = this.chance(0.3) ? this.variable(required ? 'Int!' : 'Int', id) : String(id);
      } else if (named.name === 'ID') {
        value = isListType(getNullableType(argument.type))
          ? this.chance(0.3)
            ? this.variable(
                String(argument.type),
                Array.from({ length: this.integer(0, 5) }, () => this.globalId()),
              )
            : `[${Array.from({ length: this.integer(0, 5) }, () => this.literal(this.globalId(), new GraphQLNonNull(named))).join(', ')}]`
          : this.literal(this.globalId(), argument.type);
      } else if (named.name === 'String' && required)
        value = this.literal(this.value(argument.type, true), argument.type);
      if (value !== undefined) parts.push(`${argument.name}: ${value}`);
    }
    return parts.length ? `(${parts.join(', ')})` : '';
  }

  private nodeTypes(): GraphQLObjectType[] {
    return Object.values(this.schema.getTypeMap()).filter(
      (type): type is GraphQLObjectType =>
        isObjectType(type) && type.getInterfaces().some((face) => face.name === 'Node'),
    );
  }

  /** The node type of a connection field, when the field is one. */
  private connectionNode(field: GraphQLField<unknown, unknown>): GraphQLObjectType | undefined {
    const type = getNamedType(field.type);
    if (!isObjectType(type) || !type.getFields().edges) return undefined;
    const edge = getNamedType(type.getFields().edges.type) as GraphQLObjectType;
    const node = getNamedType(edge.getFields().node.type);
    return isObjectType(node) ? node : undefined;
  }

  /** `@include`/`@skip` on a Boolean variable, now and then. */
  private directive(): string {
    if (!this.chance(0.1)) return '';
    const on = this.chance(0.5);
    return ` @${this.chance(0.5) ? 'include' : 'skip'}(if: ${this.variable('Boolean!', on)})`;
  }

  private alias(): string {
    return this.chance(0.15) ? `${this.name('a')}: ` : '';
  }

  /** A field of `type` with its arguments and selection, or undefined when it cannot be asked. */
  private field(
    type: GraphQLObjectType,
    field: GraphQLField<unknown, unknown>,
    hops: number,
    alias = this.alias(),
  ): string | undefined {
    if (this.options.volatile.has(`${type.name}.${field.name}`)) return undefined;
    const named = getNamedType(field.type);
    // Events of several kinds (the change log's pages): their own suites read them.
    if (isUnionType(named)) return undefined;
    const model = this.modelOf(this.connectionNode(field)?.name ?? named.name);
    if (!isLeafType(named) && hops >= this.options.maxHops) return undefined;
    const args = this.argumentsOf(field, model);
    if (args === undefined) return undefined;
    const head = `${alias}${field.name}${args}${this.directive()}`;
    if (isLeafType(named)) return head;
    const node = this.connectionNode(field);
    if (node) return `${head} { ${this.connection(getNamedType(field.type) as GraphQLObjectType, node, hops + 1)} }`;
    if (isInterfaceType(named)) return `${head} { ${this.abstract(named, hops + 1)} }`;
    return `${head} { ${this.selection(named as GraphQLObjectType, hops + 1)} }`;
  }

  private connection(type: GraphQLObjectType, node: GraphQLObjectType, hops: number): string {
    const parts: string[] = ['__typename'];
    if (this.chance(0.4)) parts.push(`${this.alias()}totalCount${this.directive()}`);
    if (this.chance(this.backwards * 1.5)) {
      const pageInfo = this.some(['hasNextPage', 'hasPreviousPage', 'startCursor', 'endCursor'], 4);
      parts.push(`pageInfo { ${pageInfo.join(' ')} }`);
    }
    // Both at once too: two selections of one relation with different arguments below one row must each get their page.
    if (this.chance(0.85)) {
      const cursor = this.chance(0.3) ? `${this.alias()}cursor ` : '';
      parts.push(`${this.alias()}edges${this.directive()} { ${cursor}node { ${this.selection(node, hops)} } }`);
    }
    if (this.chance(0.3)) parts.push(`${this.alias()}nodes${this.directive()} { ${this.selection(node, hops)} }`);
    void type;
    return parts.join(' ');
  }

  /** A Node interface's selection: its id, and inline fragments on some node types. */
  private abstract(type: GraphQLInterfaceType, hops: number): string {
    const types = this.schema.getPossibleTypes(type);
    const branches = this.some(types, 3).map((object) => `... on ${object.name} { ${this.selection(object, hops)} }`);
    return `__typename id ${branches.join(' ')}`;
  }

  /**
   * Some fields of an object type, always with its __typename and global id (which the leak check
   * reads), some of them inside an inline fragment or a named fragment of the type.
   */
  private selection(type: GraphQLObjectType, hops: number): string {
    const fields = Object.values(type.getFields()).filter((field) => field.name !== 'id');
    // Relations are where rows of other organizations could come in: most selections take one.
    const relations = fields.filter((field) => !isLeafType(getNamedType(field.type)));
    const picked = this.some(fields, 5);
    if (relations.length && this.chance(0.7)) picked.push(this.pick(relations));
    // Now and then a relation twice, under another alias with arguments of its own.
    const twice = relations.length && this.chance(0.1) ? [this.pick(relations)] : [];
    const chosen = [
      ...[...new Set(picked)].map((field) => this.field(type, field, hops)),
      ...twice.map((field) => this.field(type, field, hops, `${this.name('twice')}: `)),
    ].filter((text): text is string => text !== undefined);
    const identity = type.getFields().id ? '__typename id' : '__typename';
    const body = chosen.join(' ');
    if (body && this.chance(0.1)) {
      const name = this.name(`F${type.name}`);
      this.fragments.set(name, `fragment ${name} on ${type.name} { ${body} }`);
      return `${identity} ...${name}`;
    }
    if (body && this.chance(0.1)) return `${identity} ... on ${type.name}${this.directive()} { ${body} }`;
    return `${identity} ${body}`;
  }

  document(): GeneratedDocument {
    const query = this.schema.getQueryType()!;
    // Half the documents keep to the root fields the planner answers, so that it answers many of
    // them whole; the other half reach every root field.
    const plannable = this.chance(0.5);
    const roots = Object.values(query.getFields()).filter(
      (field) => !plannable || (field.extensions as { readPlan?: object }).readPlan,
    );
    const selections: string[] = [];
    while (!selections.length) {
      for (const root of this.some(roots, 3)) {
        const text = this.field(query, root, 0);
        if (text) selections.push(text);
      }
    }
    const definitions = this.variableDefinitions.length ? `(${this.variableDefinitions.join(', ')})` : '';
    const text = [`query Generated${definitions} { ${selections.join(' ')} }`, ...this.fragments.values()].join('\n');
    return { query: text, variables: this.variables };
  }
}

/** One random query document of `schema`, with the values of its variables. */
export function generateDocument(
  schema: GraphQLSchema,
  random: Random,
  pools: Pools,
  options: Options,
): GeneratedDocument {
  return new Generator(schema, random, pools, options).document();
}
