import { verbs } from '../verbs.js';
import { classConf } from '../views.js';

const r = verbs('library-control-class-conf');
const base = '/api/library/control/v1/class-conf';
const classes = { field: 'classConfs', type: 'ClassConf', select: classConf };
const row = { param: 'library_class_id' };

export default [
  r.list('Library Class List', `${base}/`, classes),
  r.create('Create Library Class', `${base}/`, { type: 'ClassConf', select: classConf }),
  r.info('Info Library Class', `${base}/info/`, classes),
  r.filter('Filter Library Class', `${base}/filter/`, classes),
  r.get('Get Library Class', `${base}/{library_class_id}/`, { ...row, field: 'classConf', select: classConf }),
  r.update('Update Library Class', `${base}/{library_class_id}/`, { ...row, type: 'ClassConf', select: classConf }),
  r.remove('Delete Library Class', `${base}/{library_class_id}/`, { ...row, type: 'ClassConf' }),
];
