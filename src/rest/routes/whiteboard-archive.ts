import { verbs } from '../verbs.js';
import { whiteboard, whiteboardArchive } from '../views.js';

const r = verbs('whiteboard-archive');
const base = '/api/whiteboard/archive/v1';
const archived = {
  field: 'whiteboards',
  type: 'Whiteboard',
  select: whiteboard,
  where: '{ inTheArchive: { eq: true } }',
};
const board = { param: 'whiteboard_id' };
// The archive's paths name archived boards only.
const archivedBoard = { ...board, check: { field: 'whiteboard', column: 'inTheArchive', value: true } };

export default [
  r.list('Whiteboard Archive List', `${base}/`, archived),
  r.info('Info Whiteboard Archive', `${base}/info/`, archived),
  r.filter('Filter Whiteboard Archive', `${base}/filter/`, archived),
  r.get('Get Whiteboard Archive', `${base}/{whiteboard_id}/`, {
    ...archivedBoard,
    field: 'whiteboard',
    select: whiteboard,
  }),
  r.remove('Delete Whiteboard', `${base}/{whiteboard_id}/`, { ...archivedBoard, type: 'Whiteboard' }),
  r.act('Unarchive', 'PUT', `${base}/{whiteboard_id}/unarchive/`, {
    ...board,
    mutation: 'unarchiveWhiteboard',
    input: 'WhiteboardArchiveInput!',
    result: `whiteboard { ${whiteboardArchive} }`,
  }),
  // Every archived board of the active organization (or of organization_id), in one transaction.
  r.route('Delete All Whiteboard', 'DELETE', `${base}/`, {
    kind: 'empty',
    status: 204,
    operation:
      'mutation DeleteAllWhiteboard($input: DeleteArchivedWhiteboardsInput) { deleteArchivedWhiteboards(input: $input) { deletedCount } }',
    queryParams: { organization_id: 'input.organizationId' },
  }),
];
