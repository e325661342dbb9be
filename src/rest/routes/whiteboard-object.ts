import { verbs } from '../verbs.js';
import { whiteboard, whiteboardObject } from '../views.js';

const r = verbs('whiteboard-object');
const base = '/api/whiteboard/v1/object';
const objects = { field: 'whiteboardObjects', type: 'WhiteboardObject', select: whiteboardObject };
const row = { param: 'object_id' };
const object = { type: 'WhiteboardObject', select: whiteboardObject };

export default [
  r.list('Whiteboard Object List', `${base}/`, objects),
  r.create('Create Whiteboard Object', `${base}/`, object),
  r.info('Info Whiteboard Object', `${base}/info/`, objects),
  r.filter('Filter Whiteboard Object', `${base}/filter/`, objects),
  r.list('Search Whiteboard Object', `${base}/search/`, {
    field: 'searchWhiteboardObjects',
    type: 'WhiteboardObject',
    select: whiteboardObject,
    args: { query: { query: 'search', type: 'String!' }, whiteboardId: { query: 'whiteboard_id', type: 'Int' } },
    cursorOnly: true,
  }),
  r.get('Get Whiteboard Object', `${base}/{object_id}/`, {
    ...row,
    field: 'whiteboardObject',
    select: whiteboardObject,
  }),
  r.update('Update Whiteboard Object', `${base}/{object_id}/`, { ...row, ...object }),
  r.remove('Delete Whiteboard Object', `${base}/{object_id}/`, { ...row, type: 'WhiteboardObject' }),
  // Named by the legacy body schema Body_import_whiteboard_objects_from_file_api_whiteboard_v1__whiteboard_id__object_import__post.
  r.submit('Import Whiteboard Objects From File', 'POST', '/api/whiteboard/v1/{whiteboard_id}/object/import/', {
    mutation: 'importWhiteboardObjects',
    result: `whiteboard { ${whiteboard} }`,
    pathParams: { whiteboard_id: 'input.whiteboardId' },
  }),
];
