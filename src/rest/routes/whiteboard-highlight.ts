import { verbs } from '../verbs.js';
import { highlight, highlightGroup, objectInstance } from '../views.js';

const r = verbs('whiteboard-highlight');
const base = '/api/whiteboard/v1/highlight';
const groupBase = '/api/whiteboard/v1/highlight-group';
const highlights = { field: 'whiteboardHighlights', type: 'WhiteboardHighlight', select: highlight };
const groups = { field: 'whiteboardHighlightGroups', type: 'WhiteboardHighlightGroup', select: highlightGroup };
const row = { param: 'highlight_id' };
const groupRow = { param: 'highlight_group_id' };
const rule = { type: 'WhiteboardHighlight', select: highlight };
const group = { type: 'WhiteboardHighlightGroup', select: highlightGroup };

export default [
  r.list('Whiteboard Highlight List', `${base}/`, highlights),
  r.create('Create Whiteboard Highlight', `${base}/`, rule),
  r.info('Info Whiteboard Highlight', `${base}/info/`, highlights),
  r.read('Check Object By Highlights', '/api/whiteboard/v1/{whiteboard_id}/highlight/check/', {
    field: 'checkObjectsByHighlights',
    select: 'highlight_id: highlightId name color object_ids: objectIds',
    args: { whiteboardId: { path: 'whiteboard_id', type: 'Int!' } },
  }),
  r.get('Get Whiteboard Highlight', `${base}/{highlight_id}/`, {
    ...row,
    field: 'whiteboardHighlight',
    select: highlight,
  }),
  r.update('Update Whiteboard Highlight', `${base}/{highlight_id}/`, { ...row, ...rule }),
  r.remove('Delete Whiteboard Highlight', `${base}/{highlight_id}/`, { ...row, type: 'WhiteboardHighlight' }),
  r.list('Get Whiteboard Highlight Object Instances', `${base}/{highlight_id}/object-instance/`, {
    field: 'whiteboardHighlightObjectInstances',
    type: 'WhiteboardObjectInstance',
    select: objectInstance,
    args: { highlightId: { path: 'highlight_id', type: 'Int!' } },
    cursorOnly: true,
  }),
  r.choices('Get Library Class Conf Id Choices', `${base}/class-conf/choices/`, {
    field: 'whiteboardHighlightClassConfChoices',
    args: { whiteboardId: { query: 'whiteboard_id', type: 'Int!' } },
  }),
  r.choices('Get Class Conf Attribute Id Choices', `${base}/class-conf-attribute/choices/`, {
    field: 'whiteboardHighlightAttributeChoices',
    args: { classConfId: { query: 'class_conf_id', type: 'Int!' } },
  }),
  r.list('Whiteboard Highlight Group List', `${groupBase}/`, groups),
  r.info('Info Whiteboard Highlight Group', `${groupBase}/info/`, groups),
  r.create('Create Whiteboard Highlight Group', `${groupBase}/`, group),
  r.get('Get Whiteboard Highlight Group', `${groupBase}/{highlight_group_id}/`, {
    ...groupRow,
    field: 'whiteboardHighlightGroup',
    select: highlightGroup,
  }),
  r.update('Update Whiteboard Highlight Group', `${groupBase}/{highlight_group_id}/`, { ...groupRow, ...group }),
  r.remove('Delete Whiteboard Highlight Group', `${groupBase}/{highlight_group_id}/`, {
    ...groupRow,
    type: 'WhiteboardHighlightGroup',
  }),
];
