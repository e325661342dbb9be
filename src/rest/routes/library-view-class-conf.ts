import { verbs } from '../verbs.js';
import { classConf } from '../views.js';

const r = verbs('library-view-class-conf');
const base = '/api/library/view/v1/class-conf';
const classes = { field: 'classConfs', type: 'ClassConf', select: classConf };

export default [
  r.list('Library Class List', `${base}/`, classes),
  r.info('Info Library Class', `${base}/info/`, classes),
  r.filter('Filter Library Class', `${base}/filter/`, classes),
  r.get('Get Library Class', `${base}/{library_class_id}/`, {
    param: 'library_class_id',
    field: 'classConf',
    select: classConf,
  }),
];
