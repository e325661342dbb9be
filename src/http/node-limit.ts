import { valueFromASTUntyped, type ValueNode } from 'graphql';
import { defaultPageSize, maxPageSize } from '../schema/pagination.js';

/** The `first` and `last` arguments of a connection field, as written (a literal or a variable). */
export interface PageArguments {
  first?: ValueNode;
  last?: ValueNode;
}

/**
 * What returns rows in an operation, as a tree of response keys: a connection (its page for every
 * row above it), an introspection field (the objects of its answer, counted once per document), and
 * the fields and fragment spreads on the way to them (a spread has no key of its own).
 */
export type RowSource =
  | { key: string; page: PageArguments; inner: RowSource[] }
  | { key: string; objects: number }
  | { key?: string; inner: RowSource[] };

export interface RowCount {
  /** Every row the sources can return; Infinity when an introspection answer was too large to count. */
  rows: number;
  /** The rows of the largest single source, and its path of response keys. */
  largest: number;
  largestPath: string;
}

/** The page a connection asks for: `first` or `last`, else the default; a size the field will refuse counts as the largest. */
export function pageSize(page: PageArguments, variables: Record<string, unknown>): number {
  const asked =
    [page.first, page.last].map((node) => node && valueFromASTUntyped(node, variables)).find((size) => size != null) ??
    defaultPageSize;
  return Number.isInteger(asked) ? Math.min(Math.max(asked as number, 0), maxPageSize) : maxPageSize;
}

const none: RowCount = { rows: 0, largest: 0, largestPath: '' };

const under = (key: string | undefined, path: string) => (key === undefined ? path : path ? `${key}.${path}` : key);

/**
 * The most rows the sources can return, as GitHub's API counts its nodes: each connection returns its
 * page size for every row above it, whatever the data holds. Counted from the leaves up, once per
 * source: a fragment spread many times over (or nested fragments doubling at every level) is one
 * shared source, so the count stays as cheap as the document is long.
 */
export function countRows(sources: RowSource[], variables: Record<string, unknown>): RowCount {
  const counted = new Map<RowSource, RowCount>();
  // Plain loops and objects built field by field: this runs per request when page sizes are variables.
  const sum = (list: RowSource[]): RowCount => {
    let rows = 0;
    let largest = none;
    for (const source of list) {
      const each = count(source);
      rows += each.rows;
      if (each.largest > largest.largest) largest = each;
    }
    return { rows, largest: largest.largest, largestPath: largest.largestPath };
  };
  const count = (source: RowSource): RowCount => {
    let result = counted.get(source);
    if (result) return result;
    if ('objects' in source) {
      result = { rows: source.objects, largest: source.objects, largestPath: source.key };
    } else if ('page' in source) {
      const size = pageSize(source.page, variables);
      const inner = sum(source.inner);
      const innerIsLarger = size * inner.largest > size;
      result = {
        rows: size + size * inner.rows,
        largest: innerIsLarger ? size * inner.largest : size,
        largestPath: innerIsLarger ? under(source.key, inner.largestPath) : source.key,
      };
    } else {
      const inner = sum(source.inner);
      result = { rows: inner.rows, largest: inner.largest, largestPath: under(source.key, inner.largestPath) };
    }
    counted.set(source, result);
    return result;
  };
  return sum(sources);
}
