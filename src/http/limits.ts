import {
  getOperationAST,
  GraphQLError,
  type DocumentNode,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import type { Config } from '../config.js';
import type { OperationCheck } from './guard.js';
import { countRows, type RowCount } from './node-limit.js';
import { operationShape, type OperationShape } from './operation-shape.js';

type Limits = Pick<Config, 'maxDepth' | 'maxAliases' | 'maxNodes'>;

/** Why an operation is refused: what was measured, the figure found (absent when too large to count), the limit, and where. */
interface Refusal {
  message: string;
  measure: 'depth' | 'aliases' | '__schema' | '__type' | 'rows' | 'tokens' | 'nesting';
  found?: number;
  limit: number;
  path?: string;
}

/** What is known of an operation before its variables: a refusal, or its shape and, when no page size is a variable, its rows. */
type Verdict = { refusal: Refusal } | { shape: OperationShape; rows?: number };

/** What an operation asks with a request's variables: refused, or admitted with the most rows it may return. */
export type Measure = { refusal: GraphQLError } | { rows: number };

// One description of the schema per operation is all a client needs; more only multiplies the answer.
const introspectionLimit = 1;

function refusalOfShape(shape: OperationShape, limits: Limits): Refusal | undefined {
  if (shape.aliases > limits.maxAliases) {
    return {
      message: `Operation uses ${shape.aliases} aliases; the limit is ${limits.maxAliases}.`,
      measure: 'aliases',
      found: shape.aliases,
      limit: limits.maxAliases,
    };
  }
  if (shape.depth > limits.maxDepth) {
    const message = `Operation nests ${shape.depth} fields deep, at ${shape.deepestPath}; the limit is ${limits.maxDepth} (a connection costs three: the field, edges and node).`;
    return { message, measure: 'depth', found: shape.depth, limit: limits.maxDepth, path: shape.deepestPath };
  }
  for (const field of ['__schema', '__type'] as const) {
    const paths = shape.introspection[field];
    if (paths.length > introspectionLimit) {
      const message = `Operation selects ${field} ${paths.length} times (${paths.join(', ')}); the limit is ${introspectionLimit} per operation.`;
      return {
        message,
        measure: field,
        found: paths.length,
        limit: introspectionLimit,
        path: paths[introspectionLimit],
      };
    }
  }
  return undefined;
}

function refusalOfRows(count: RowCount, maxNodes: number): Refusal | undefined {
  if (count.rows <= maxNodes) return undefined;
  const figure = Number.isFinite(count.rows) ? `up to ${count.rows}` : `more than ${maxNodes}`;
  const largest = Number.isFinite(count.largest) ? `${count.largest} of them` : 'most of them';
  const message =
    `Operation could return ${figure} rows; the limit is ${maxNodes}. Each connection counts its page size (first or last, else 20) ` +
    `for every row above it; ${largest} come from ${count.largestPath}. Ask for smaller pages or fewer levels.`;
  return {
    message,
    measure: 'rows',
    ...(Number.isFinite(count.rows) && { found: count.rows }),
    limit: maxNodes,
    path: count.largestPath,
  };
}

function verdictOf(shape: OperationShape, limits: Limits): Verdict {
  const shapeRefusal = refusalOfShape(shape, limits);
  if (shapeRefusal) return { refusal: shapeRefusal };
  if (shape.variablePages) return { shape };
  const count = countRows(shape.rows, {});
  const refusal = refusalOfRows(count, limits.maxNodes);
  return refusal ? { refusal } : { shape, rows: count.rows };
}

export function refusalError({ message, ...extensions }: Refusal): GraphQLError {
  // A request error, answered as GraphQL over HTTP answers a validation failure: 400 to
  // application/graphql-response+json, 200 to application/json.
  return new GraphQLError(message, {
    extensions: { code: 'OPERATION_TOO_COMPLEX', ...extensions, http: { status: 400, spec: true } },
  });
}

/** Measures an operation with a request's variables; `operationMeasure` makes one per set of limits. */
export type OperationMeasure = (
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Record<string, unknown>,
) => Measure;

/**
 * One model of what an operation may ask: the rows it could return (MAX_NODES), how deep it nests
 * (MAX_DEPTH), how many aliases it uses (MAX_ALIASES), and one `__schema` and one `__type` at most.
 * All but page sizes given as variables is worked out once per parsed operation, which Yoga's
 * document cache hands back for the same query text (and the REST routes parse once at start). The
 * rows are also what a rate limit charges (src/http/rate-limit/).
 */
export function operationMeasure(limits: Limits): OperationMeasure {
  const verdicts = new WeakMap<OperationDefinitionNode, Verdict>();
  return (schema, document, operation, variables) => {
    let verdict = verdicts.get(operation);
    if (!verdict) {
      verdict = verdictOf(operationShape(schema, document, operation, limits.maxNodes), limits);
      verdicts.set(operation, verdict);
    }
    if ('refusal' in verdict) return { refusal: refusalError(verdict.refusal) };
    if (verdict.rows !== undefined) return { rows: verdict.rows };
    const count = countRows(verdict.shape.rows, { ...verdict.shape.variableDefaults, ...variables });
    const refusal = refusalOfRows(count, limits.maxNodes);
    return refusal ? { refusal: refusalError(refusal) } : { rows: count.rows };
  };
}

/** The limits, checked before anything runs (so before any SQL), for every operation on every door. */
export function operationLimits(measure: OperationMeasure): OperationCheck {
  return ({ schema, document, operationName, variableValues }) => {
    const operation = getOperationAST(document, operationName);
    if (!operation) return undefined;
    const measured = measure(schema, document, operation, variableValues ?? {});
    return 'refusal' in measured ? measured.refusal : undefined;
  };
}
