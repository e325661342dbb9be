import { verbs } from '../verbs.js';
import { objectConnection } from '../views.js';

const r = verbs('whiteboard-object-connection');
const base = '/api/whiteboard/v1/object-connection';
const links = { field: 'whiteboardObjectConnections', type: 'WhiteboardObjectConnection', select: objectConnection };
const row = { param: 'object_connection_id' };
const link = { type: 'WhiteboardObjectConnection', select: objectConnection };

export default [
  r.list('Whiteboard Object Connection List', `${base}/`, links),
  r.create('Create Whiteboard Object Connection', `${base}/`, link),
  r.info('Info Whiteboard Object Connection', `${base}/info/`, links),
  r.filter('Filter Whiteboard Object Connection', `${base}/filter/`, links),
  r.get('Get Whiteboard Object Connection', `${base}/{object_connection_id}/`, {
    ...row,
    field: 'whiteboardObjectConnection',
    select: objectConnection,
  }),
  r.update('Update Whiteboard Object Connection', `${base}/{object_connection_id}/`, { ...row, ...link }),
  r.remove('Delete Whiteboard Object Connection', `${base}/{object_connection_id}/`, {
    ...row,
    type: 'WhiteboardObjectConnection',
  }),
];
