import { verbs } from '../verbs.js';
import { repositoryEntry } from '../views.js';

const r = verbs('object-repository');
const base = '/api/object-repository/v1';
const entries = { field: 'objectRepositoryEntries', type: 'ObjectRepositoryEntry', select: repositoryEntry };

export default [
  // "New": the latest entries first.
  r.list('Object Repository New List', `${base}/new/`, {
    ...entries,
    orderBy: '[{ field: createdAt, direction: DESC }]',
  }),
  r.info('Info Object Repository New', `${base}/new/info/`, entries),
  r.list('Object Repository List', `${base}/`, entries),
  r.create('Create Object Repository', `${base}/`, { type: 'ObjectRepositoryEntry', select: repositoryEntry }),
  r.info('Info Object Repository', `${base}/info/`, entries),
  r.filter('Filter Object Repository', `${base}/filter/`, entries),
  r.get('Get Object Repository', `${base}/{object_repository_id}/`, {
    param: 'object_repository_id',
    field: 'objectRepositoryEntry',
    select: repositoryEntry,
  }),
  r.choices('Get User Field Choices', `${base}/user/choices/`, { field: 'objectRepositoryUserChoices' }),
];
