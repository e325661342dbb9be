import { builder } from './builder.js';
import { rowIdNode } from './global-id.js';
import { pageInTenancy } from './pagination.js';
import { defineRootFields } from './root-fields.js';
import { readPlan } from '../read-plans/extensions.js';
import { literal, sql } from '../read-plans/sql.js';
import { visibleRelation } from './relations.js';

/** Path under which stored files are served. */
export const filesPath = '/files/';

builder.prismaNode('File', {
  ...rowIdNode('File'),
  description: 'An uploaded file (the legacy "file reference").',
  fields: (t) => ({
    rowId: t.exposeInt('id'),
    file: t.string({
      description: 'URL path where the file is served.',
      resolve: (row) => filesPath + row.file,
      extensions: readPlan({ value: (column) => sql`${literal(filesPath)} || ${column('file')}` }),
    }),
    name: t.exposeString('name'),
    contentType: t.exposeString('contentType'),
    size: t.exposeInt('size', { description: 'Size in bytes.' }),
    organizationId: t.exposeInt('organizationId'),
    uploadedById: t.exposeInt('uploadedById', { nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    organization: t.relation('organization'),
    uploadedBy: t.prismaField(visibleRelation('File', 'uploadedBy')),
    previewOf: t.relatedConnection('whiteboardPreview', pageInTenancy('Whiteboard')),
  }),
});

defineRootFields({
  model: 'File',
  list: 'files',
  single: 'file',
  filter: { name: 'String', contentType: 'String', organizationId: 'Int', uploadedById: 'Int', createdAt: 'DateTime' },
  order: ['id', 'name', 'size', 'createdAt'],
});
