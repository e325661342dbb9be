import { verbs } from '../verbs.js';
import { objectInstance } from '../views.js';

const r = verbs('whiteboard-object-instance');
const base = '/api/whiteboard/v1/object-instance';
const instances = { field: 'whiteboardObjectInstances', type: 'WhiteboardObjectInstance', select: objectInstance };
const row = { param: 'object_instance_id' };
const instance = { type: 'WhiteboardObjectInstance', select: objectInstance };

export default [
  r.list('Whiteboard Object Instance List', `${base}/`, instances),
  r.create('Create Whiteboard Object Instance', `${base}/`, instance),
  r.info('Info Whiteboard Object Instance', `${base}/info/`, instances),
  r.filter('Filter Whiteboard Object Instance', `${base}/filter/`, instances),
  r.get('Get Whiteboard Object Instance', `${base}/{object_instance_id}/`, {
    ...row,
    field: 'whiteboardObjectInstance',
    select: objectInstance,
  }),
  r.update('Update Whiteboard Object Instance', `${base}/{object_instance_id}/`, { ...row, ...instance }),
  r.remove('Delete Whiteboard Object Instance', `${base}/{object_instance_id}/`, {
    ...row,
    type: 'WhiteboardObjectInstance',
  }),
];
