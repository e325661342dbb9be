import {
  astFromValue,
  getNamedType,
  isEnumType,
  isLeafType,
  isListType,
  isNonNullType,
  isObjectType,
  print,
  type GraphQLInputObjectType,
  type GraphQLInputType,
  type GraphQLObjectType,
  type GraphQLSchema,
} from 'graphql';
import type { WritePlanExtension } from '../../src/write-plans/extension.js';
import type { GeneratedDocument, Pools } from './documents.js';
import { Draws, type Random } from './properties.js';
import { globalId } from './graphql.js';

/** The mutation fields a write plan may answer, from the schema: their names and plans. */
export function plannedMutations(schema: GraphQLSchema): [string, WritePlanExtension][] {
  return Object.entries(schema.getMutationType()!.getFields()).flatMap(([name, field]) =>
    field.extensions?.writePlan ? [[name, field.extensions.writePlan as WritePlanExtension]] : [],
  );
}

/**
 * Random documents of one planned mutation each, from the schema: the target by row id or global id
 * (of any organization, of another type, of no row, both or neither), a few columns with values of
 * the data and values no check accepts, as a variable or a literal; a payload of the row's columns
 * under aliases and fragments, and now and then a field only the executor answers.
 */
export class WriteDocuments extends Draws {
  constructor(
    private readonly schema: GraphQLSchema,
    random: Random,
    private readonly pools: Pools,
  ) {
    super(random);
    this.samples = {
      Float: pools.numbers,
      Boolean: [true, false],
      DateTime: pools.times,
      String: [...pools.strings, '  padded  ', 'x'.repeat(256), 'y'.repeat(10_001), 'Ünïcödé ✓'],
    };
  }

  private anyId = () => this.pick(this.pick([...this.pools.ids.values()].filter((ids) => ids.length)));

  /** Values of each scalar: the data's, and values no check accepts (too long, padded, past int4). */
  private readonly samples: Record<string, readonly unknown[]>;

  private value(name: string, type: GraphQLInputType): unknown {
    if (!isNonNullType(type) && this.chance(0.1)) return null;
    const named = getNamedType(type);
    if (isEnumType(named)) return this.pick(named.getValues()).value;
    if (named.name !== 'Int') return this.pick(this.samples[named.name] ?? this.samples.String);
    // A column naming a row: ids of every model and organization, and one past the rows.
    return /Id$/.test(name) ? (this.chance(0.9) ? this.anyId() : 2 ** 31 - 1) : this.pick([0, 1, -1, 7, 300]);
  }

  private input(type: GraphQLInputObjectType, plan: WritePlanExtension): Record<string, unknown> {
    const input: Record<string, unknown> = {};
    const target = this.random();
    const rowIds = this.pools.ids.get(plan.model) ?? [];
    if (target < 0.6) input.rowId = this.pick(rowIds);
    else if (target < 0.8) input.id = globalId(plan.model, this.pick(rowIds));
    else if (target < 0.85) input.rowId = 99_999;
    else if (target < 0.9) input.id = this.pick([globalId('Organization', 1), 'xx', globalId(plan.model, 'abc')]);
    else if (target < 0.95) Object.assign(input, { rowId: this.pick(rowIds), id: globalId(plan.model, 1) });
    const columns = Object.values(type.getFields()).filter(
      (field) => !['id', 'rowId', 'expectedVersion'].includes(field.name),
    );
    for (const field of columns)
      if (this.chance(2 / columns.length)) input[field.name] = this.value(field.name, field.type);
    return input;
  }

  /** A selection of the written row: columns and ids, under aliases or in a fragment; now and then a relation. */
  private rowSelection(type: GraphQLObjectType): { text: string; relation: boolean } {
    const fields = Object.values(type.getFields());
    const leaves = fields.filter((field) => isLeafType(getNamedType(field.type)) && !isListType(field.type));
    const others = fields.filter((field) => isObjectType(getNamedType(field.type)));
    const chosen = leaves
      .filter(() => this.chance(0.3))
      .map((field) => (this.chance(0.2) ? `a${field.name}: ${field.name}` : field.name));
    if (this.chance(0.2)) chosen.push('__typename');
    const relation = others.length > 0 && this.chance(0.15);
    if (relation) chosen.push(`${this.pick(others).name} { __typename }`);
    if (!chosen.length) chosen.push(leaves[0].name);
    return { text: this.chance(0.2) ? `... on ${type.name} { ${chosen.join(' ')} }` : chosen.join(' '), relation };
  }

  /**
   * A document, and whether it asks a field of the row that only the executor answers; and, on a
   * document of variables, the version it expects of its row (`expecting`): the row's current one
   * or a stale one, which its sender fills in as `input.expectedVersion` when it sends it.
   */
  next(): GeneratedDocument & { relation: boolean; model: string; expecting?: 'current' | 'stale' } {
    const mutations = plannedMutations(this.schema);
    const [name, plan] = this.pick(mutations);
    const field = this.schema.getMutationType()!.getFields()[name];
    const inputType = getNamedType(field.args[0].type) as GraphQLInputObjectType;
    const payloadType = getNamedType(field.type) as GraphQLObjectType;
    const rowType = getNamedType(payloadType.getFields()[plan.rowField].type) as GraphQLObjectType;
    const input = this.input(inputType, plan);
    const selection = this.rowSelection(rowType);
    const payload = [`${plan.rowField} { ${selection.text} }`];
    if (this.chance(0.2)) payload.unshift('__typename');
    if (this.chance(0.3)) {
      // A literal: the values as the document spells them, coerced by graphql-js from the text.
      const literal = astFromValue(input, inputType);
      const query = `mutation { ${name}(input: ${literal ? print(literal) : '{}'}) { ${payload.join(' ')} } }`;
      return { query, variables: {}, relation: selection.relation, model: plan.model };
    }
    const versioned = 'expectedVersion' in inputType.getFields() && this.chance(0.5);
    return {
      query: `mutation Write($input: ${inputType.name}!) { ${name}(input: $input) { ${payload.join(' ')} } }`,
      variables: { input },
      relation: selection.relation,
      model: plan.model,
      expecting: versioned ? this.pick(['current', 'stale'] as const) : undefined,
    };
  }
}
