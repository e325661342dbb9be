import {
  getOperationAST,
  type DocumentNode,
  type ExecutionResult,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import { coercedVariables } from './variables.js';
import type { Plugin } from 'graphql-yoga';
import { db } from '../db/index.js';
import { principalOf, type Context } from '../schema/context.js';
import { modelCatalog } from '../schema/model-catalog.js';
import { planOperation, type Statement } from './compile.js';
import { parameterVariables, planKey, Slot, withSlots } from './template.js';
import { fragmentsOf } from './selection.js';
import { Unplannable } from './where.js';
import { writePlanFor } from '../write-plans/plan.js';

/** Plans kept per operation: one per tenancy and structural variable values, the oldest dropped first. */
const MAX_PLANS_PER_OPERATION = 100;

interface OperationPlans {
  parameters: ReturnType<typeof parameterVariables>;
  /** A statement with slots for the parameter variables, or why the operation cannot be planned. */
  byKey: Map<string, Statement | string>;
}

// Keyed by the parsed operation, which Yoga's document cache hands back for the same query text.
const plans = new WeakMap<OperationDefinitionNode, OperationPlans>();

// The root fields of a planned answer's `data`, and their JSON texts as the statement returned them.
const plannedTexts = new WeakMap<object, { keys: string[]; texts: string[] }>();

/** A planned answer's root field as JSON text, unparsed; undefined when the executor answered. */
export function plannedJson(data: object, key: string): string | undefined {
  const planned = plannedTexts.get(data);
  return planned?.texts[planned.keys.indexOf(key)];
}

/**
 * The statement's JSON texts become the response body as they are (Yoga writes `stringify()`), and
 * `data` parses a root field only when read, by the REST layer (which takes a whole object's text
 * through `plannedJson` instead).
 */
async function run(statement: Statement, values: unknown[]): Promise<ExecutionResult> {
  const [row] = (await db().queryRows(statement.sql, values)) as (string | null)[][];
  const texts = row.map((text) => text ?? 'null');
  const data: Record<string, unknown> = {};
  statement.keys.forEach((key, i) => {
    let parsed: unknown;
    Object.defineProperty(data, key, { enumerable: true, get: () => (parsed ??= JSON.parse(texts[i])) });
  });
  plannedTexts.set(data, { keys: statement.keys, texts });
  const body = `{"data":{${statement.keys.map((key, i) => `${JSON.stringify(key)}:${texts[i]}`).join(',')}}}`;
  return Object.assign({ data }, { stringify: () => body });
}

/** The operation's statement for this caller and these variables: planned once, then taken from the cache. */
function planned(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  context: Context,
  variables: Record<string, unknown>,
): Statement | string {
  let operationPlans = plans.get(operation);
  if (!operationPlans) {
    operationPlans = { parameters: parameterVariables(operation, fragmentsOf(document)), byKey: new Map() };
    plans.set(operation, operationPlans);
  }
  const { parameters, byKey } = operationPlans;
  const key = planKey(variables, parameters, principalOf(context));
  let statement = byKey.get(key);
  if (statement !== undefined) return statement;
  try {
    statement = planOperation(schema, operation, {
      catalog: modelCatalog(),
      context,
      fragments: fragmentsOf(document),
      variables: withSlots(variables, parameters),
    });
  } catch (error) {
    if (!(error instanceof Unplannable)) throw error;
    statement = error.message;
  }
  if (byKey.size >= MAX_PLANS_PER_OPERATION) byKey.delete(byKey.keys().next().value!);
  byKey.set(key, statement);
  return statement;
}

/** An operation's statement with this request's values, or why the executor answers it instead. */
export function readPlanFor(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | null | undefined,
  context: Context,
  variableValues: Record<string, unknown> | null | undefined,
): { statement: Statement; values: unknown[] } | string {
  const operation = getOperationAST(document, operationName);
  if (operation?.operation !== 'query') return `not a query operation`;
  if (!context?.principal) return 'no API key';
  const variables = coercedVariables(schema, operation, variableValues);
  if (variables.errors) return 'variables the executor refuses';
  const statement = planned(schema, document, operation, context, variables.coerced);
  if (typeof statement === 'string') return statement;
  const values = statement.values.map((value) =>
    value instanceof Slot ? value.convert(variables.coerced[value.variable]) : value,
  );
  return { statement, values };
}

/**
 * Answers a query operation with one SQL statement when every field it selects can be planned
 * (compile.ts), and a mutation of one row written in one statement without the executor when its
 * payload asks only that row's columns (write-plans); anything else runs through the executor
 * unchanged. Registered after the limits, so a planned operation passed them like any other.
 */
export function usePlans(): Plugin<Context> {
  return {
    onExecute({ args, setExecuteFn }) {
      const request = [
        args.schema as GraphQLSchema,
        args.document,
        args.operationName,
        args.contextValue as Context,
        args.variableValues,
      ] as const;
      const read = readPlanFor(...request);
      if (typeof read !== 'string') return setExecuteFn(() => run(read.statement, read.values));
      const write = writePlanFor(...request);
      if (typeof write !== 'string') setExecuteFn(write);
    },
  };
}
