import type { GraphQLInputType } from 'graphql';

/** One value of a request, where it goes, and how it is checked. */
export interface Param {
  /** Its legacy name. */
  name: string;
  in: 'path' | 'query' | 'body';
  /** Variable path it fills; null: checked, not passed on. */
  target: string[] | null;
  /** Its GraphQL type; null for `ordering` (parsed apart). */
  type: GraphQLInputType | null;
  required: boolean;
  default?: unknown;
  minimum?: number;
  maximum?: number;
  /** For `ordering`: legacy sort key -> `<Type>OrderField` value. */
  ordering?: Map<string, string>;
  description?: string;
}
