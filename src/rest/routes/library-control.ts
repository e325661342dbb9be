import { verbs } from '../verbs.js';
import { library } from '../views.js';

const r = verbs('library-control');
const base = '/api/library/control/v1';
const libraries = { field: 'libraries', type: 'Library', select: library };
const row = { param: 'library_id' };

export default [
  r.list('Library List', `${base}/`, libraries),
  r.create('Create Library', `${base}/`, { type: 'Library', select: library }),
  r.info('Info Library', `${base}/info/`, libraries),
  r.filter('Filter Library', `${base}/filter/`, libraries),
  r.get('Get Library', `${base}/{library_id}/`, { ...row, field: 'library', select: library }),
  r.update('Update Library', `${base}/{library_id}/`, { ...row, type: 'Library', select: library }),
  r.remove('Delete Library', `${base}/{library_id}/`, { ...row, type: 'Library' }),
];
