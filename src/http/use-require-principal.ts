import { getOperationAST, Kind, type DocumentNode, type GraphQLSchema, type SelectionSetNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Context } from '../schema/context.js';
import { unauthenticated } from '../schema/errors.js';

/** The extension that opens a root field to callers without an API key (registerWithInvite). */
export const publicField = { public: true } as const;

/** Whether every root field the operation selects, through its fragments too, is public. */
function onlyPublicFields(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | null | undefined,
): boolean {
  const operation = getOperationAST(document, operationName);
  const root = operation && schema.getRootType(operation.operation);
  if (!root) return false;
  const fields = root.getFields();
  const fragments = new Map(
    document.definitions.flatMap((definition) =>
      definition.kind === Kind.FRAGMENT_DEFINITION ? [[definition.name.value, definition.selectionSet] as const] : [],
    ),
  );
  const allPublic = (selectionSet: SelectionSetNode | undefined): boolean =>
    !!selectionSet &&
    selectionSet.selections.every((selection) => {
      if (selection.kind === Kind.FIELD) return fields[selection.name.value]?.extensions.public === true;
      return allPublic(
        selection.kind === Kind.INLINE_FRAGMENT ? selection.selectionSet : fragments.get(selection.name.value),
      );
    });
  return allPublic(operation.selectionSet);
}

/**
 * Refuses an operation without an API key, as a request error before anything runs, unless it asks
 * only for public fields: a caller without a key learns nothing else, over /graphql and REST alike.
 */
export function useRequirePrincipal(): Plugin<Context> {
  const refuse = ({
    args,
    setResultAndStopExecution,
  }: {
    args: { contextValue: unknown; schema: GraphQLSchema; document: DocumentNode; operationName?: string | null };
    setResultAndStopExecution(result: { errors: ReturnType<typeof unauthenticated>[] }): void;
  }) => {
    if (
      (args.contextValue as Context).principal === null &&
      !onlyPublicFields(args.schema, args.document, args.operationName)
    ) {
      setResultAndStopExecution({ errors: [unauthenticated()] });
    }
  };
  return { onExecute: refuse, onSubscribe: refuse };
}
