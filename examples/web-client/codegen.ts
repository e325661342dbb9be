import { createHash } from 'node:crypto';
import type { CodegenConfig } from '@graphql-codegen/cli';

/**
 * Types the operations of src/**.graphql from the gateway's printed schema, and writes the manifest
 * of those documents by hash (src/generated/graphql/persisted-documents.json), which the gateway's
 * TRUSTED_DOCUMENTS reads. The generated documents hold the hash only, so the bundle carries no
 * query text and the gateway runs nothing it was not given first.
 */
const config: CodegenConfig = {
  schema: '../../schema.graphql',
  documents: 'src/**/*.graphql',
  generates: {
    'src/generated/graphql/': {
      preset: 'client',
      presetConfig: {
        fragmentMasking: false,
        persistedDocuments: {
          mode: 'replaceDocumentWithHash',
          // The hex SHA-256 of the document as the manifest holds it, as Apollo's persistedQuery.sha256Hash means.
          hashAlgorithm: (document: string) => createHash('sha256').update(document).digest('hex'),
        },
      },
      config: {
        documentMode: 'string',
        enumsAsTypes: true,
        useTypeImports: true,
        scalars: { DateTime: 'string' },
      },
    },
  },
};

export default config;
