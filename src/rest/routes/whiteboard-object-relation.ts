import { verbs } from '../verbs.js';
import { objectRelation } from '../views.js';

const r = verbs('whiteboard-object-relation');
const base = '/api/whiteboard/v1/object-relation';
const relations = { field: 'whiteboardObjectRelations', type: 'WhiteboardObjectRelation', select: objectRelation };

export default [
  r.list('Whiteboard Object Relation List', `${base}/`, relations),
  r.info('Info Whiteboard Object Relation', `${base}/info/`, relations),
  r.filter('Filter Whiteboard Object Relation', `${base}/filter/`, relations),
];
