import { verbs } from '../verbs.js';
import { classConfAttribute } from '../views.js';

const r = verbs('library-control-class-conf-attribute');
const base = '/api/library/control/v1/class-conf-attribute';
const attributes = { field: 'classConfAttributes', type: 'ClassConfAttribute', select: classConfAttribute };
const row = { param: 'class_conf_attribute_id' };
const attribute = { type: 'ClassConfAttribute', select: classConfAttribute };

export default [
  r.list('Library Class Conf Attribute List', `${base}/`, attributes),
  r.create('Create Library Class Conf Attribute', `${base}/`, attribute),
  r.info('Info Library Class Conf Attribute', `${base}/info/`, attributes),
  r.filter('Filter Library Class Conf Attribute', `${base}/filter/`, attributes),
  r.get('Get Library Class Conf Attribute', `${base}/{class_conf_attribute_id}/`, {
    ...row,
    field: 'classConfAttribute',
    select: classConfAttribute,
  }),
  r.update('Update Library Class Conf Attribute', `${base}/{class_conf_attribute_id}/`, { ...row, ...attribute }),
  r.remove('Delete Library Class Conf Attribute', `${base}/{class_conf_attribute_id}/`, {
    ...row,
    type: 'ClassConfAttribute',
  }),
  r.reorder('Update Library Class Conf Attribute Order', `${base}/order/`, {
    mutation: 'reorderClassConfAttributes',
    select: classConfAttribute,
  }),
];
