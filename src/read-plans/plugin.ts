import {
  getOperationAST,
  getVariableValues,
  Kind,
  type DocumentNode,
  type ExecutionResult,
  type FragmentDefinitionNode,
  type GraphQLSchema,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { ModelName } from '../auth/tenancy.js';
import { db, prisma } from '../db/index.js';
import type { Context } from '../schema/context.js';
import { buildCatalog, type ModelTable } from './catalog.js';
import { planOperation, type Statement } from './compile.js';
import { Unplannable } from './where.js';

let catalog: Map<ModelName, ModelTable> | undefined;
const fragmentsOf = new WeakMap<DocumentNode, Record<string, FragmentDefinitionNode>>();

function fragments(document: DocumentNode): Record<string, FragmentDefinitionNode> {
  let found = fragmentsOf.get(document);
  if (!found) {
    found = Object.fromEntries(document.definitions.filter((node) => node.kind === Kind.FRAGMENT_DEFINITION).map((node) => [node.name.value, node]));
    fragmentsOf.set(document, found);
  }
  return found;
}

/**
 * The statement's JSON texts become the response body as they are (Yoga writes `stringify()`), and
 * `data` parses a root field only when read, by the REST layer.
 */
async function run(statement: Statement): Promise<ExecutionResult> {
  const [row] = (await db().queryRows(statement.sql, statement.values)) as (string | null)[][];
  const texts = row.map((text) => text ?? 'null');
  const data: Record<string, unknown> = {};
  statement.keys.forEach((key, i) => {
    let parsed: unknown;
    Object.defineProperty(data, key, { enumerable: true, get: () => (parsed ??= JSON.parse(texts[i])) });
  });
  const body = `{"data":{${statement.keys.map((key, i) => `${JSON.stringify(key)}:${texts[i]}`).join(',')}}}`;
  return Object.assign({ data }, { stringify: () => body });
}

/**
 * Answers a query operation with one SQL statement when every field it selects can be planned
 * (compile.ts); anything else runs through the executor unchanged. Registered after the limits, so
 * a planned operation passed them like any other.
 */
export function useReadPlans(): Plugin<Context> {
  return {
    onExecute({ args, setExecuteFn }) {
      const context = args.contextValue as Context;
      const operation = getOperationAST(args.document, args.operationName);
      if (!context?.principal || operation?.operation !== 'query') return;
      const variables = getVariableValues(args.schema as GraphQLSchema, operation.variableDefinitions ?? [], args.variableValues ?? {});
      if (variables.errors) return;
      catalog ??= buildCatalog(prisma());
      let statement: Statement;
      try {
        statement = planOperation(args.schema, operation, { catalog, context, fragments: fragments(args.document), variables: variables.coerced });
      } catch (error) {
        if (error instanceof Unplannable) return;
        throw error;
      }
      setExecuteFn(() => run(statement));
    },
  };
}
