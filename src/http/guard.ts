import type { DocumentNode, GraphQLError, GraphQLSchema } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Context } from '../schema/context.js';

/** What a check sees of an operation: the document, its variables and the caller's context. */
export interface GuardedOperation {
  schema: GraphQLSchema;
  document: DocumentNode;
  operationName?: string | null;
  variableValues?: Record<string, unknown> | null;
  contextValue: unknown;
}

/** The context of a guarded operation (made by the context factory, on every door). */
export const contextOf = (operation: GuardedOperation) => operation.contextValue as Context;

/** A check an operation must pass before anything of it runs: its refusal, or undefined. */
export type OperationCheck = (
  operation: GuardedOperation,
) => GraphQLError | undefined | Promise<GraphQLError | undefined>;

type Stop = (result: { errors: GraphQLError[] }) => void;

/** Runs `checks` from `index` on; synchronous until a check answers with a promise. */
function runChecks(
  checks: readonly OperationCheck[],
  index: number,
  operation: GuardedOperation,
  stop: Stop,
): void | Promise<void> {
  for (let i = index; i < checks.length; i++) {
    const refusal = checks[i](operation);
    if (refusal instanceof Promise)
      return refusal.then((settled) =>
        settled ? stop({ errors: [settled] }) : runChecks(checks, i + 1, operation, stop),
      );
    if (refusal) return stop({ errors: [refusal] });
  }
}

/**
 * The one guard every operation passes, whatever its kind and door: a query or mutation over HTTP,
 * over WebSocket and behind a REST route (envelop's execute), and a subscription over Server-Sent
 * Events and WebSocket (envelop's subscribe, which never passes through execute). The checks run in
 * order; the first refusal is the answer, so nothing of the operation runs and a refused
 * subscription never opens. A check that answers at once keeps the guard synchronous.
 */
export function useOperationGuard(checks: readonly OperationCheck[]): Plugin<Context> {
  const guard = ({ args, setResultAndStopExecution }: { args: GuardedOperation; setResultAndStopExecution: Stop }) =>
    runChecks(checks, 0, args, setResultAndStopExecution);
  return { onExecute: guard, onSubscribe: guard };
}
