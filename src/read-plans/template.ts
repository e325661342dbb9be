import {
  Kind,
  visit,
  type ASTNode,
  type FragmentDefinitionNode,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type TypeNode,
  type ValueNode,
} from 'graphql';
import type { Principal } from '../auth/principal.js';
import { cursorRowId } from '../schema/pagination.js';
import { globalIdParts } from './identifiers.js';

/**
 * A variable whose value a cached plan carries as a parameter, filled in at every request: as it
 * is, or converted (a cursor to its row id). `sample` is the value the plan was made with; any
 * other value of the same plan key plans alike (planKey).
 */
export class Slot {
  constructor(
    readonly variable: string,
    readonly sample: unknown,
    readonly convert: (value: unknown) => unknown = (value) => value,
  ) {}

  /** The same variable, sent converted. */
  as(convert: (value: unknown) => unknown): Slot {
    return new Slot(this.variable, this.sample, (value) => convert(this.convert(value)));
  }

  /** The item at `index` of a list variable. */
  item(index: number): Slot {
    return new Slot(
      this.variable,
      (this.sample as unknown[])[index],
      (value) => (this.convert(value) as unknown[])[index],
    );
  }
}

/**
 * How a parameter variable is used: a filter operand or lookup row id (`operand`), a connection
 * cursor, or the global id(s) of `node`/`nodes`. Each is sent as a parameter; what shapes the
 * statement is only its class (keyOf): null or not, a cursor the resolvers accept or not, the
 * type a global id names.
 */
type Role = 'operand' | 'cursor' | 'globalId';

const typenameOf = (value: unknown) => globalIdParts(value)?.typename ?? false;

function keyOf(role: Role, value: unknown): unknown {
  if (value === null) return null;
  if (role === 'cursor') return cursorRowId(value) !== undefined;
  if (role === 'globalId') return Array.isArray(value) ? value.map(typenameOf) : typenameOf(value);
  return true;
}

// Filter operators whose operand the planner only ever sends as a parameter (where.ts).
const parameterOperators = new Set(['eq', 'ne', 'in', 'gt', 'gte', 'lt', 'lte']);

const namedType = (type: TypeNode): string => (type.kind === Kind.NAMED_TYPE ? type.name.value : namedType(type.type));

function variablesIn(node: ASTNode, into: Set<string>): Set<string> {
  visit(node, { Variable: (variable) => void into.add(variable.name.value) });
  return into;
}

/**
 * The variables of an operation whose values only ever become SQL parameters, with their role: the
 * `rowId` of a root lookup, the operands of filter comparisons, connection cursors and the ids of
 * `node`/`nodes`. Every other use (page sizes, order, directives, whole filter objects, anything in
 * a fragment) can change the statement itself, so it keys the plan cache by value. Timestamps are
 * left out: the planner converts them before they are sent.
 */
export function parameterVariables(
  operation: OperationDefinitionNode,
  fragments: Record<string, FragmentDefinitionNode>,
): Map<string, Role> {
  const asParameter = new Map<string, Role>();
  const structural = new Set<string>();
  // A variable in two roles is keyed by value.
  const use = (name: string, role: Role) => {
    if ((asParameter.get(name) ?? role) !== role) structural.add(name);
    asParameter.set(name, role);
  };
  const filter = (value: ValueNode): void => {
    if (value.kind === Kind.LIST) {
      for (const item of value.values) filter(item);
      return;
    }
    if (value.kind !== Kind.OBJECT) return void variablesIn(value, structural);
    for (const field of value.fields) {
      if (parameterOperators.has(field.name.value) && field.value.kind === Kind.VARIABLE)
        use(field.value.name.value, 'operand');
      else filter(field.value);
    }
  };
  const walk = (set: SelectionSetNode, root: boolean): void => {
    for (const selection of set.selections) {
      for (const directive of selection.directives ?? []) variablesIn(directive, structural);
      if (selection.kind === Kind.FRAGMENT_SPREAD) {
        const fragment = fragments[selection.name.value];
        if (fragment) variablesIn(fragment, structural);
        continue;
      }
      if (selection.kind === Kind.FIELD) {
        for (const argument of selection.arguments ?? []) {
          const role = roleOf(selection.name.value, argument.name.value, root);
          if (role && argument.value.kind === Kind.VARIABLE) use(argument.value.name.value, role);
          else if (role === 'globalId' && argument.value.kind === Kind.LIST)
            for (const item of argument.value.values)
              if (item.kind === Kind.VARIABLE) use(item.name.value, role);
              else variablesIn(item, structural);
          else if (argument.name.value === 'filter' && argument.value.kind === Kind.OBJECT) filter(argument.value);
          else variablesIn(argument.value, structural);
        }
      }
      if (selection.selectionSet) walk(selection.selectionSet, root && selection.kind === Kind.INLINE_FRAGMENT);
    }
  };
  walk(operation.selectionSet, true);
  for (const definition of operation.variableDefinitions ?? []) {
    if (namedType(definition.type) === 'DateTime') structural.add(definition.variable.name.value);
  }
  return new Map([...asParameter].filter(([name]) => !structural.has(name)));
}

/** The role of a field argument whose variable can be a parameter, if it has one. */
function roleOf(field: string, argument: string, root: boolean): Role | undefined {
  if (argument === 'after' || argument === 'before') return 'cursor';
  if (!root) return undefined;
  if (argument === 'rowId') return 'operand';
  if ((field === 'node' && argument === 'id') || (field === 'nodes' && argument === 'ids')) return 'globalId';
  return undefined;
}

/** What a plan depends on besides its parameter variables' values: the other variables' values, their classes and the caller's tenancy. */
export function planKey(
  variables: Record<string, unknown>,
  parameters: Map<string, Role>,
  principal: Principal,
): string {
  // By name: a variable left out is absent from the coerced values, so positions alone would confuse two.
  const shape = Object.entries(variables).map(([name, value]) => {
    const role = parameters.get(name);
    return [name, role ? keyOf(role, value) : value];
  });
  // Roles and not only organizations: some rows only some roles may read (tenancy.ts, readActions).
  return JSON.stringify([principal.isAdmin, principal.userId, [...principal.roles], shape]);
}

/** The variables of a request: parameter variables become slots, the rest keep their values. */
export function withSlots(variables: Record<string, unknown>, parameters: Map<string, Role>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(variables).map(([name, value]) => [
      name,
      parameters.has(name) && value !== null ? new Slot(name, value) : value,
    ]),
  );
}
