import { readFileSync } from 'node:fs';
import { GraphQLError, parse, type DocumentNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { usePersistedOperations } from '@graphql-yoga/plugin-persisted-operations';

/** The persisted documents /graphql runs, by id (the hash a client sends), each parsed once at start. */
export type TrustedDocuments = ReadonlyMap<string, DocumentNode>;

/** Apollo's manifest (`@apollo/generate-persisted-query-manifest`); the other accepted form is a plain map of id to document. */
interface ApolloManifest {
  format: 'apollo-persisted-query-manifest';
  operations: { id: string; body: string }[];
}

// Request errors, answered as GraphQL over HTTP answers a validation failure: 400 to
// application/graphql-response+json, 200 to application/json.
const refusal = (code: string, message: string) =>
  new GraphQLError(message, { extensions: { code, http: { status: 400, spec: true } } });

export const idRequired = () =>
  refusal(
    'PERSISTED_QUERY_ID_REQUIRED',
    'This server runs only trusted documents: send the id of one in extensions.persistedQuery.sha256Hash (with version 1), not a query',
  );
export const notInList = (id: string) =>
  refusal('PERSISTED_QUERY_NOT_IN_LIST', `No trusted document has the id ${id.slice(0, 100)}`);

/**
 * Reads a manifest: `{"<id>": "<document>", ...}` (GraphQL Codegen's client preset, Relay, and
 * others) or Apollo's `{"format": "apollo-persisted-query-manifest", "operations": [{"id", "body"}]}`.
 * A document that does not parse stops the start, naming its id.
 */
export function loadTrustedDocuments(path: string): TrustedDocuments {
  let manifest: unknown;
  try {
    manifest = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new Error(`TRUSTED_DOCUMENTS: cannot read ${path} as JSON (${(error as Error).message})`);
  }
  const entries: [string, unknown][] =
    (manifest as ApolloManifest)?.format === 'apollo-persisted-query-manifest'
      ? (manifest as ApolloManifest).operations.map((operation) => [operation.id, operation.body])
      : Object.entries(manifest ?? {});
  const documents = new Map<string, DocumentNode>();
  for (const [id, text] of entries) {
    if (typeof text !== 'string')
      throw new Error(`TRUSTED_DOCUMENTS: the document of ${id} in ${path} is not a string`);
    try {
      documents.set(id, parse(text));
    } catch (error) {
      throw new Error(
        `TRUSTED_DOCUMENTS: the document of ${id} in ${path} does not parse (${(error as Error).message})`,
      );
    }
  }
  return documents;
}

/**
 * /graphql runs only the trusted documents, named by id in the Apollo persisted-query form
 * (`extensions.persistedQuery.sha256Hash`); any other query is refused before it is parsed. The
 * REST routes run operations of their own and are not concerned. A document is the same parsed
 * object at every request, so Yoga's validation cache and the read plans' cache hold for it.
 */
export function useTrustedDocuments(documents: TrustedDocuments): Plugin {
  return usePersistedOperations({
    getPersistedOperation: (id) => documents.get(id) ?? null,
    customErrors: {
      persistedQueryOnly: idRequired,
      keyNotFound: idRequired,
      notFound: ({ params }) =>
        notInList(String((params.extensions?.persistedQuery as { sha256Hash?: unknown } | undefined)?.sha256Hash)),
    },
  });
}
