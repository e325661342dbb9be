import { verbs } from '../verbs.js';
import { dataStream } from '../views.js';

const r = verbs('whiteboard-data-stream');
const base = '/api/whiteboard/v1/data-stream';
const streams = { field: 'dataStreams', type: 'DataStream', select: dataStream };
const own = { param: 'data_stream_id' };
const nested = {
  param: 'data_stream_id',
  check: { field: 'dataStream', column: 'whiteboardId', param: 'whiteboard_id' },
};
const underBoard = '/api/whiteboard/v1/{whiteboard_id}/data-stream/{data_stream_id}/';

export default [
  r.list('Whiteboard Data Stream List', `${base}/`, streams),
  r.create('Create Whiteboard Data Stream', `${base}/`, { type: 'DataStream', select: dataStream }),
  r.info('Info Whiteboard Data Stream', `${base}/info/`, streams),
  r.filter('Filter Whiteboard Data Stream', `${base}/filter/`, streams),
  r.get('Get Whiteboard Data Stream', `${base}/{data_stream_id}/`, { ...own, field: 'dataStream', select: dataStream }),
  r.get('Get Whiteboard Data Stream', underBoard, { ...nested, field: 'dataStream', select: dataStream }),
  r.update('Update Whiteboard Data Stream', `${base}/{data_stream_id}/`, {
    ...own,
    type: 'DataStream',
    select: dataStream,
  }),
  r.update('Update Whiteboard Data Stream', underBoard, { ...nested, type: 'DataStream', select: dataStream }),
  r.remove('Delete Whiteboard Data Stream', `${base}/{data_stream_id}/`, { ...own, type: 'DataStream' }),
  r.remove('Delete Whiteboard Data Stream', underBoard, { ...nested, type: 'DataStream' }),
];
