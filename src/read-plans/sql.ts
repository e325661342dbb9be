import { sql, type SQL, type SQLRawValue } from 'pg-sql2';

/*
 * Every statement of the read planner is built from pg-sql2 fragments (the builder PostGraphile
 * compiles its SQL with): identifiers are quoted and values numbered by it alone, once, when the
 * statement is compiled (`statementOf`).
 */
export { sql, type SQL };

/**
 * A value sent as a numbered parameter with an explicit cast. The same fragment used twice is one
 * parameter; a slot of a variable (template.ts) is a value filled in at every request.
 */
export const parameter = (value: unknown, cast: string): SQL =>
  sql`${sql.value(value as SQLRawValue)}${written(`::${cast}`)}`;

/**
 * SQL text the planner writes itself (a cast, a string constant), never a request's value: those are
 * parameters. Made as pg-sql2's template tag makes a constant's fragment; its `sql.raw` would do the
 * same but warns on first use.
 */
const written = (text: string): SQL => sql(Object.assign([text], { raw: [text] }) as unknown as TemplateStringsArray);

/** A string constant in the statement's text (pg-sql2's `literal` would send most strings as parameters). */
export const literal = (text: string): SQL => written(`'${text.replaceAll("'", "''")}'`);

/** `alias.column`, quoted. */
export const columnOf = (alias: SQL, column: string): SQL => sql`${alias}.${sql.identifier(column)}`;

/** A table by its name, quoted. */
export const tableOf = (table: string): SQL => sql.identifier(table);

/** The statement's text and its values in parameter order. */
export function statementOf(fragment: SQL): { text: string; values: unknown[] } {
  const { text, values } = sql.compile(fragment);
  return { text, values };
}

/*
 * Responses are built as JSON text by concatenation: json_build_object and row_to_json look up the
 * output function of every value for every row (twice the time for a prepared nested read), and the
 * text is compact. Every piece below is JSON text that is never NULL, so a concatenation never
 * collapses to NULL.
 */

/** JSON text of a constant string (a key, a type name). */
export const jsonLiteral = (value: string) => literal(JSON.stringify(value));

/** JSON text of a SQL text value, escaped by PostgreSQL. */
export const jsonString = (text: SQL) => sql`to_json(${text})::text`;

/** JSON text of a value that needs no escaping (digits, base64, timestamps), quoted. */
export const quoted = (text: SQL) => sql`'"' || ${text} || '"'`;

/** `null` where the SQL value is NULL. */
export const orNull = (json: SQL) => sql`COALESCE(${json}, 'null')`;

/** A JSON object with the keys in the order given, as GraphQL orders a response. */
export function jsonObject(entries: [key: string, json: SQL][]): SQL {
  if (!entries.length) return sql`'{}'`;
  const parts = entries.map(([key, json], i) => sql`${literal(`${i ? ',' : '{'}${JSON.stringify(key)}:`)} || ${json}`);
  return sql`${sql.join(parts, ' || ')} || '}'`;
}

/**
 * An array of one element per row, in the given order. The rows' texts are gathered by
 * `ARRAY(... ORDER BY)`, which costs no sort over a page already in that order, and joined once
 * (`jsonArray`): a third less of PostgreSQL's time than `string_agg(... ORDER BY)` took for the
 * nested board read and for one board (BENCHMARKS.md, issue 39).
 */
export const rowArray = (element: SQL, fromWhereOrder: SQL) => sql`ARRAY(SELECT ${element} ${fromWhereOrder})`;

/** A JSON array of the texts of a SQL array, in its order; `[]` for none. */
export const jsonArray = (texts: SQL) => sql`'[' || array_to_string(${texts}, ',') || ']'`;

/** base64 of a prefix and a row id: Relay's global ids and Pothos's cursors. */
export const base64Of = (prefix: string, id: SQL) =>
  sql`encode(convert_to(${literal(prefix)} || ${id}, 'UTF8'), 'base64')`;

/** How the DateTime scalar prints a timestamp column (UTC, milliseconds). */
export const isoTimestamp = (column: SQL) => sql`to_char(${column}, 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** Conditions joined with AND, leaving out those that always hold. */
export function allOf(parts: SQL[]): SQL {
  const kept = parts.filter((part) => part !== sql.true);
  return kept.length ? sql.join(kept, ' AND ') : sql.true;
}
