import { verbs } from '../verbs.js';
import { slide } from '../views.js';

const r = verbs('whiteboard-data-stream-slide');
const base = '/api/whiteboard/v1/data-stream-slide';
const slides = { field: 'slides', type: 'Slide', select: slide };
const row = { param: 'data_stream_slide_id' };

export default [
  r.list('Whiteboard Data Stream Slide List', `${base}/`, slides),
  r.create('Create Whiteboard Data Stream Slide', `${base}/`, { type: 'Slide', select: slide }),
  r.info('Info Whiteboard Data Stream Slide', `${base}/info/`, slides),
  r.filter('Filter Whiteboard Data Stream Slide', `${base}/filter/`, slides),
  r.get('Get Whiteboard Data Stream Slide', `${base}/{data_stream_slide_id}/`, {
    ...row,
    field: 'slide',
    select: slide,
  }),
  r.update('Update Whiteboard Data Stream Slide', `${base}/{data_stream_slide_id}/`, {
    ...row,
    type: 'Slide',
    select: slide,
  }),
  r.remove('Delete Whiteboard Data Stream Slide', `${base}/{data_stream_slide_id}/`, { ...row, type: 'Slide' }),
  r.reorder('Update Whiteboard Data Stream Slide Order', `${base}/order/`, {
    mutation: 'reorderSlides',
    select: slide,
  }),
];
