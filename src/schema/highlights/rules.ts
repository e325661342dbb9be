import type { HighlightOperand } from '../../generated/prisma/enums.js';
import {
  compareValues,
  readAttributeValue,
  storedValue,
  type AttributeKind,
  type ValueColumns,
} from '../objects/attribute-values.js';

export interface Rule {
  operand: HighlightOperand;
  value: string;
}

const textTypes = new Set(['STRING', 'TEXT', 'CHOICE']);
const ordering: Partial<Record<HighlightOperand, (order: number) => boolean>> = {
  EQUAL: (order) => order === 0,
  NOT_EQUAL: (order) => order !== 0,
  GREATER: (order) => order > 0,
  GREATER_OR_EQUAL: (order) => order >= 0,
  LESS: (order) => order < 0,
  LESS_OR_EQUAL: (order) => order <= 0,
};

/** Why a rule cannot be applied to an attribute of this kind, and which input field is at fault; null when it can. */
export function ruleProblem(rule: Rule, kind: AttributeKind): { message: string; field: 'operand' | 'value' } | null {
  if (rule.operand === 'IS_EMPTY' || rule.operand === 'IS_NOT_EMPTY') return null;
  if (rule.operand === 'CONTAINS') {
    if (!textTypes.has(kind.type))
      return { message: `CONTAINS applies to text attributes, not ${kind.type}`, field: 'operand' };
    return rule.value.trim() === '' ? { message: 'CONTAINS needs a value', field: 'value' } : null;
  }
  if (kind.type === 'BOOLEAN' && rule.operand !== 'EQUAL' && rule.operand !== 'NOT_EQUAL') {
    return { message: `${rule.operand} does not apply to BOOLEAN attributes`, field: 'operand' };
  }
  const read = readAttributeValue(kind, rule.value);
  if ('error' in read) return { message: read.error, field: 'value' };
  return read.value === null ? { message: `${rule.operand} needs a value`, field: 'value' } : null;
}

/**
 * The test of one rule on an object's stored value (undefined when it has no value row), read once per rule.
 * A missing value is empty, and it is "not equal" to anything; a rule whose value no longer fits its attribute
 * (the attribute's type changed since) marks nothing.
 */
export function compileRule(rule: Rule, kind: AttributeKind): (row: ValueColumns | undefined) => boolean {
  const valueIn = (row: ValueColumns | undefined) => storedValue(kind.type, row);
  if (rule.operand === 'IS_EMPTY') return (row) => valueIn(row) === null;
  if (rule.operand === 'IS_NOT_EMPTY') return (row) => valueIn(row) !== null;
  if (rule.operand === 'CONTAINS') {
    const needle = rule.value.trim().toLowerCase();
    return (row) => {
      const actual = valueIn(row);
      return typeof actual === 'string' && actual.toLowerCase().includes(needle);
    };
  }
  const read = readAttributeValue(kind, rule.value);
  const holds = ordering[rule.operand]!;
  if ('error' in read || read.value === null) return () => false;
  const expected = read.value;
  return (row) => {
    const actual = valueIn(row);
    return actual === null ? rule.operand === 'NOT_EQUAL' : holds(compareValues(actual, expected));
  };
}
