import { allowedContentTypes, baseContentType, contentMatches, fileStore } from '../files/store.js';
import { builder } from './builder.js';
import { authorize, recordChange } from './changes.js';
import { badUserInput, forbidden } from './errors.js';
import { principalOf } from './context.js';
import { changedRow } from './loaders.js';

builder.scalarType('Upload', {
  description:
    'A file sent as a part of a multipart request (https://github.com/jaydenseric/graphql-multipart-request-spec).',
  serialize: () => {
    throw new TypeError('Upload is an input type');
  },
  parseValue: (value) => {
    // Yoga hands over a Web File; its class may come from a fetch ponyfill rather than the global one.
    const file = value as File | null;
    // A GraphQLError: a wrong value is the caller's to fix, not a masked "Unexpected error.".
    if (typeof file?.arrayBuffer !== 'function' || typeof file.name !== 'string')
      throw badUserInput('Upload must be a file part of a multipart request', 'Upload');
    return file;
  },
});

const UploadFileInput = builder.inputType('UploadFileInput', {
  fields: (t) => ({
    file: t.field({ type: 'Upload', required: true, description: 'The file; its part carries the content type.' }),
  }),
});

const UploadFilePayload = builder.objectRef<{ rowId: number }>('UploadFilePayload').implement({
  fields: (t) => ({
    file: t.prismaField({
      type: 'File',
      resolve: (query, payload) => changedRow('File', query, payload.rowId),
    }),
  }),
});

/** The name the uploader gave, without any directory part, as a label only (the stored name is random). */
function displayName(name: string): string {
  return (name.split(/[/\\]/).pop() ?? '').trim().slice(0, 255) || 'file';
}

builder.mutationField('uploadFile', (t) =>
  t.field({
    type: UploadFilePayload,
    description: `Stores a file in the active organization and returns its reference; the URL in \`file.file\` serves it. Allowed types: ${Object.keys(allowedContentTypes).join(', ')}.`,
    args: { input: t.arg({ type: UploadFileInput, required: true }) },
    resolve: async (_root, { input }, ctx) => {
      const organizationId = principalOf(ctx).activeOrganizationId;
      if (organizationId == null) throw forbidden('Switch to an organization before uploading files');
      authorize(ctx, 'editContent', organizationId);
      const store = fileStore();
      const contentType = baseContentType(input.file.type);
      if (!allowedContentTypes[contentType]) {
        throw badUserInput(
          `content type "${contentType || 'none'}" is not allowed; allowed: ${Object.keys(allowedContentTypes).join(', ')}`,
          'input.file',
        );
      }
      if (input.file.size > store.maxBytes)
        throw badUserInput(`the file is larger than ${store.maxBytes} bytes`, 'input.file');
      const bytes = new Uint8Array(await input.file.arrayBuffer());
      if (bytes.length === 0) throw badUserInput('the file is empty', 'input.file');
      if (!contentMatches(bytes, contentType))
        throw badUserInput(`the file's content is not ${contentType}`, 'input.file');
      const stored = await store.save(bytes, contentType);
      const change = { method: 'CREATE', entityType: 'File', organizationId } as const;
      const row = await recordChange(ctx, change, (tx) =>
        tx.file.create({
          data: {
            file: stored,
            name: displayName(input.file.name),
            contentType,
            size: bytes.length,
            organizationId,
            uploadedById: principalOf(ctx).userId,
          },
          select: { id: true },
        }),
      ).catch(async (error: unknown) => {
        await store.remove(stored);
        throw error;
      });
      return { rowId: row.id };
    },
  }),
);
