import type { ClassConfAttributeType } from '../../generated/prisma/enums.js';
import { badUserInput } from '../errors.js';

/** What decides how an attribute's value is read and stored. */
export interface AttributeKind {
  type: ClassConfAttributeType;
  choices: string[];
}

/** The value columns of a `whiteboard_object_attribute_data` row. */
export interface ValueColumns {
  valueStr: string | null;
  valueNumber: number | null;
  valueBool: boolean | null;
  valueDate: Date | null;
}

export type AttributeValue = string | number | boolean | Date;

const maxLength: Partial<Record<ClassConfAttributeType, number>> = { STRING: 255, TEXT: 10_000 };
const integer = /^[+-]?\d+$/;
const decimal = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;
const isoDate = /^\d{4}-\d{2}-\d{2}$/;

/** What a value given as text means for an attribute of this kind: the typed value, null for "no value", or why it does not fit. */
export function readAttributeValue(
  kind: AttributeKind,
  text: string,
): { value: AttributeValue | null } | { error: string } {
  const trimmed = text.trim();
  if (trimmed === '') return { value: null };
  const unfit = { error: `"${trimmed}" is not a valid ${kind.type} value` };
  switch (kind.type) {
    case 'STRING':
    case 'TEXT':
      return trimmed.length > maxLength[kind.type]!
        ? { error: `value is longer than ${maxLength[kind.type]} characters` }
        : { value: trimmed };
    case 'CHOICE':
      return kind.choices.includes(trimmed)
        ? { value: trimmed }
        : { error: `"${trimmed}" is not one of ${kind.choices.join(', ')}` };
    case 'INTEGER':
      return integer.test(trimmed) && Number.isSafeInteger(Number(trimmed)) ? { value: Number(trimmed) } : unfit;
    case 'FLOAT':
      return decimal.test(trimmed) && Number.isFinite(Number(trimmed)) ? { value: Number(trimmed) } : unfit;
    case 'BOOLEAN': {
      const lower = trimmed.toLowerCase();
      return lower === 'true' || lower === 'false'
        ? { value: lower === 'true' }
        : { error: `"${trimmed}" is not true or false` };
    }
    case 'DATE': {
      // Date.parse would roll 2026-02-30 over into March; only real calendar days are accepted.
      const date = new Date(`${trimmed}T00:00:00Z`);
      return isoDate.test(trimmed) && !Number.isNaN(date.getTime()) && date.toISOString().startsWith(trimmed)
        ? { value: date }
        : { error: `"${trimmed}" is not a date (YYYY-MM-DD)` };
    }
  }
}

/** Like readAttributeValue, but a value that does not fit is the caller's error on `field`. */
export function parseAttributeValue(kind: AttributeKind, text: string, field: string): AttributeValue | null {
  const read = readAttributeValue(kind, text);
  if ('error' in read) throw badUserInput(read.error, field);
  return read.value;
}

/** Every value column, the one of the type holding the value: a row never keeps a stale value of another type. */
export function valueColumns(type: ClassConfAttributeType, value: AttributeValue | null): ValueColumns {
  const columns: ValueColumns = { valueStr: null, valueNumber: null, valueBool: null, valueDate: null };
  if (value === null) return columns;
  if (type === 'INTEGER' || type === 'FLOAT') columns.valueNumber = value as number;
  else if (type === 'BOOLEAN') columns.valueBool = value as boolean;
  else if (type === 'DATE') columns.valueDate = value as Date;
  else columns.valueStr = value as string;
  return columns;
}

/** The value a stored row holds for an attribute of this type; null when it holds none (an empty string counts as none). */
export function storedValue(type: ClassConfAttributeType, row: ValueColumns | undefined): AttributeValue | null {
  if (!row) return null;
  if (type === 'INTEGER' || type === 'FLOAT') return row.valueNumber;
  if (type === 'BOOLEAN') return row.valueBool;
  if (type === 'DATE') return row.valueDate;
  return row.valueStr === '' ? null : row.valueStr;
}

/** Orders two values of one attribute type: strings by code point, numbers, dates and booleans numerically. */
export function compareValues(a: AttributeValue, b: AttributeValue): number {
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  return Number(a) - Number(b);
}
