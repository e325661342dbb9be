/** Values of one statement, sent as numbered parameters with an explicit cast each. */
export class Parameters {
  readonly values: unknown[] = [];

  add(value: unknown, cast: string): string {
    this.values.push(value);
    return `$${this.values.length}::${cast}`;
  }
}

export const quote = (identifier: string) => `"${identifier.replaceAll('"', '""')}"`;

export const literal = (text: string) => `'${text.replaceAll("'", "''")}'`;

/** `alias.column`, quoted. */
export const columnOf = (alias: string, column: string) => `${alias}.${quote(column)}`;

// json_build_object takes at most 100 arguments; a larger selection falls back to the executor.
const maxKeys = 50;

/** A JSON object with the keys in the order given, as GraphQL orders a response; undefined past the argument limit. */
export function jsonObject(entries: [key: string, value: string][]): string | undefined {
  if (entries.length > maxKeys) return undefined;
  return `json_build_object(${entries.map(([key, value]) => `${literal(key)}, ${value}`).join(', ')})`;
}

/** base64 of a prefix and a row id: Relay's global ids and Pothos's cursors. */
export const base64Of = (prefix: string, id: string) => `encode(convert_to(${literal(prefix)} || ${id}, 'UTF8'), 'base64')`;

/** How the DateTime scalar prints a timestamp column (UTC, milliseconds). */
export const isoTimestamp = (column: string) => `to_char(${column}, 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
