import { verbs } from '../verbs.js';
import { dataStreamConnection } from '../views.js';

const r = verbs('whiteboard-data-stream-connection');
const base = '/api/whiteboard/v1/data-stream-connection';
const underStream = '/api/whiteboard/v1/data-stream/{data_stream_id}/data-stream-connection';
const steps = { field: 'dataStreamConnections', type: 'DataStreamConnection', select: dataStreamConnection };
const own = { param: 'data_stream_connection_id' };
const nested = {
  param: 'data_stream_connection_id',
  check: { field: 'dataStreamConnection', column: 'dataStreamId', param: 'data_stream_id' },
};
const step = { type: 'DataStreamConnection', select: dataStreamConnection };

export default [
  r.list('Whiteboard Data Stream Connection List', `${base}/`, steps),
  r.create('Create Whiteboard Data Stream Connection', `${base}/`, step),
  r.info('Info Whiteboard Data Stream Connection', `${base}/info/`, steps),
  r.filter('Filter Whiteboard Data Stream Connection', `${base}/filter/`, steps),
  r.get('Get Whiteboard Data Stream Connection', `${base}/{data_stream_connection_id}/`, {
    ...own,
    field: 'dataStreamConnection',
    select: dataStreamConnection,
  }),
  r.get('Get Whiteboard Data Stream Connection', `${underStream}/{data_stream_connection_id}/`, {
    ...nested,
    field: 'dataStreamConnection',
    select: dataStreamConnection,
  }),
  r.update('Update Whiteboard Data Stream Connection', `${base}/{data_stream_connection_id}/`, { ...own, ...step }),
  r.update('Update Whiteboard Data Stream Connection', `${underStream}/{data_stream_connection_id}/`, {
    ...nested,
    ...step,
  }),
  r.remove('Delete Whiteboard Data Stream Connection', `${base}/{data_stream_connection_id}/`, {
    ...own,
    type: 'DataStreamConnection',
  }),
  r.remove('Delete Whiteboard Data Stream Connection', `${underStream}/{data_stream_connection_id}/`, {
    ...nested,
    type: 'DataStreamConnection',
  }),
  // The stream is named in the body (data_stream_id) or in the path.
  r.reorder('Update Whiteboard Data Stream Connection Order', `${base}/order/`, {
    mutation: 'reorderDataStreamConnections',
    select: dataStreamConnection,
  }),
  r.reorder('Update Whiteboard Data Stream Connection Order', `${underStream}/order/`, {
    mutation: 'reorderDataStreamConnections',
    select: dataStreamConnection,
    pathParams: { data_stream_id: 'input.dataStreamId' },
  }),
];
