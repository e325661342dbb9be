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

/*
 * Responses are built as JSON text by concatenation: json_build_object and row_to_json look up the
 * output function of every value for every row (twice the time for a prepared nested read), and the
 * text is compact. Every piece below is JSON text that is never NULL, so a concatenation never
 * collapses to NULL.
 */

/** JSON text of a constant string (a key, a type name). */
export const jsonLiteral = (value: string) => literal(JSON.stringify(value));

/** JSON text of a SQL text value, escaped by PostgreSQL. */
export const jsonString = (text: string) => `to_json(${text})::text`;

/** JSON text of a value that needs no escaping (digits, base64, timestamps), quoted. */
export const quoted = (text: string) => `'"' || ${text} || '"'`;

/** `null` where the SQL value is NULL. */
export const orNull = (json: string) => `COALESCE(${json}, 'null')`;

/** A JSON object with the keys in the order given, as GraphQL orders a response. */
export function jsonObject(entries: [key: string, json: string][]): string {
  if (!entries.length) return `'{}'`;
  return `${entries.map(([key, json], i) => `${literal(`${i ? ',' : '{'}${JSON.stringify(key)}:`)} || ${json}`).join(' || ')} || '}'`;
}

/** A JSON array of one element per row, in the given order; `[]` for none. */
export const jsonArray = (element: string, order: string, from: string) =>
  `COALESCE((SELECT '[' || string_agg(${element}, ',' ORDER BY ${order}) || ']' FROM ${from}), '[]')`;

/** base64 of a prefix and a row id: Relay's global ids and Pothos's cursors. */
export const base64Of = (prefix: string, id: string) =>
  `encode(convert_to(${literal(prefix)} || ${id}, 'UTF8'), 'base64')`;

/** How the DateTime scalar prints a timestamp column (UTC, milliseconds). */
export const isoTimestamp = (column: string) => `to_char(${column}, 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
