import { lexicographicSortSchema, printSchema } from 'graphql';
import { schema } from './index.js';

/** The schema as committed in schema.graphql: sorted, so a diff shows only real API changes. */
export function printSortedSchema(): string {
  return `${printSchema(lexicographicSortSchema(schema))}\n`;
}
