import { verbs } from '../verbs.js';
import { user, whiteboard, whiteboardArchive } from '../views.js';

const r = verbs('whiteboard');
const base = '/api/whiteboard/v1';
const boards = {
  field: 'whiteboards',
  type: 'Whiteboard',
  select: whiteboard,
  where: '{ inTheArchive: { eq: false } }',
};
const board = { param: 'whiteboard_id' };

// Boards in the archive are the whiteboard-archive group's; these lists leave them out.
export default [
  r.list('Whiteboard List', `${base}/`, boards),
  r.create('Create Whiteboard', `${base}/`, { type: 'Whiteboard', select: whiteboard }),
  r.info('Info Whiteboard', `${base}/info/`, boards),
  r.filter('Filter Whiteboard', `${base}/filter/`, boards),
  r.get('Get Whiteboard', `${base}/{whiteboard_id}/`, { ...board, field: 'whiteboard', select: whiteboard }),
  r.update('Update Whiteboard', `${base}/{whiteboard_id}/`, { ...board, type: 'Whiteboard', select: whiteboard }),
  r.remove('Delete Whiteboard', `${base}/{whiteboard_id}/`, { ...board, type: 'Whiteboard' }),
  r.act('Archive', 'PUT', `${base}/{whiteboard_id}/archive/`, {
    ...board,
    mutation: 'archiveWhiteboard',
    input: 'WhiteboardArchiveInput!',
    result: `whiteboard { ${whiteboardArchive} }`,
  }),
  r.list('Whiteboard Clients', `${base}/{whiteboard_id}/clients/`, {
    field: 'whiteboardClients',
    type: 'User',
    select: user,
    args: { rowId: { path: 'whiteboard_id', type: 'Int!' } },
    cursorOnly: true,
  }),
  // Named by the legacy body schema Body_import_whiteboard_from_file_api_whiteboard_v1_import__post.
  r.submit('Import Whiteboard From File', 'POST', `${base}/import/`, {
    mutation: 'importWhiteboard',
    result: `whiteboard { ${whiteboard} }`,
    status: 201,
  }),
];
