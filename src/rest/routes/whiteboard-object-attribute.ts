import { verbs } from '../verbs.js';
import { objectAttribute } from '../views.js';

const r = verbs('whiteboard-object-attribute');
const base = '/api/whiteboard/v1/object-attribute';
const values = { field: 'whiteboardObjectAttributes', type: 'WhiteboardObjectAttribute', select: objectAttribute };
const row = { param: 'object_attribute_id' };

export default [
  r.list('Whiteboard Object Attribute List', `${base}/`, values),
  r.info('Info Whiteboard Object Attribute', `${base}/info/`, values),
  r.filter('Filter Whiteboard Object Attribute', `${base}/filter/`, values),
  r.get('Get Whiteboard Object Attribute', `${base}/{object_attribute_id}/`, {
    ...row,
    field: 'whiteboardObjectAttribute',
    select: objectAttribute,
  }),
  r.update('Update Whiteboard Object Attribute', `${base}/{object_attribute_id}/`, {
    ...row,
    type: 'WhiteboardObjectAttribute',
    select: objectAttribute,
  }),
  r.choices('Get Whiteboard Object Attribute Code Choices', `${base}/code/choices/`, {
    field: 'whiteboardObjectAttributeCodeChoices',
    args: {
      classConfId: { query: 'class_conf_id', type: 'Int' },
      whiteboardId: { query: 'whiteboard_id', type: 'Int' },
    },
  }),
  r.choices('Get Whiteboard Object Attribute Data Value Str Choices', `${base}/value-str/choices/`, {
    field: 'whiteboardObjectAttributeValueStrChoices',
    args: { attributeId: { query: 'attribute_id', type: 'Int!' } },
  }),
];
