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

/** A variable whose value a cached plan carries as a parameter, filled in at every request. */
export class Slot {
  constructor(readonly variable: string) {}
}

// Filter operators whose operand the planner only ever sends as a parameter (where.ts).
const parameterOperators = new Set(['eq', 'in', 'gt', 'gte', 'lt', 'lte']);

const namedType = (type: TypeNode): string => (type.kind === Kind.NAMED_TYPE ? type.name.value : namedType(type.type));

function variablesIn(node: ASTNode, into: Set<string>): Set<string> {
  visit(node, { Variable: (variable) => void into.add(variable.name.value) });
  return into;
}

/**
 * The variables of an operation whose values only ever become SQL parameters: the `rowId` of a root
 * lookup and the operands of filter comparisons. Every other use (page sizes, order, directives,
 * whole filter objects, anything in a fragment) can change the statement itself, so it keys the
 * plan cache by value. Timestamps are left out: the planner converts them before they are sent.
 */
export function parameterVariables(
  operation: OperationDefinitionNode,
  fragments: Record<string, FragmentDefinitionNode>,
): Set<string> {
  const asParameter = new Set<string>();
  const structural = new Set<string>();
  const filter = (value: ValueNode): void => {
    if (value.kind === Kind.LIST) {
      for (const item of value.values) filter(item);
      return;
    }
    if (value.kind !== Kind.OBJECT) return void variablesIn(value, structural);
    for (const field of value.fields) {
      if (parameterOperators.has(field.name.value) && field.value.kind === Kind.VARIABLE)
        asParameter.add(field.value.name.value);
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
          if (root && argument.name.value === 'rowId' && argument.value.kind === Kind.VARIABLE)
            asParameter.add(argument.value.name.value);
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
  return new Set([...asParameter].filter((name) => !structural.has(name)));
}

/** What a plan depends on besides its parameter variables: the other variables' values and the caller's tenancy. */
export function planKey(variables: Record<string, unknown>, parameters: Set<string>, principal: Principal): string {
  const shape = Object.entries(variables).map(([name, value]) => (parameters.has(name) ? value === null : value));
  return JSON.stringify([principal.isAdmin, principal.userId, [...principal.roles.keys()], shape]);
}

/** The variables of a request: parameter variables become slots, the rest keep their values. */
export function withSlots(variables: Record<string, unknown>, parameters: Set<string>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(variables).map(([name, value]) => [
      name,
      parameters.has(name) && value !== null ? new Slot(name) : value,
    ]),
  );
}
