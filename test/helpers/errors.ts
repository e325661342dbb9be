import { expect } from 'vitest';
import type { GraphQLResponse } from './graphql.js';

/** Expects the answer's first error to carry `code` (and name `field`, when given); a failure shows every error. */
export function expectError(answer: Pick<GraphQLResponse, 'errors'>, code: string, field?: string): void {
  expect(answer.errors?.[0]?.extensions?.code, JSON.stringify(answer.errors)).toBe(code);
  if (field !== undefined) expect(answer.errors?.[0]?.extensions?.field, JSON.stringify(answer.errors)).toBe(field);
}
