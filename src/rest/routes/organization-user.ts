import { verbs } from '../verbs.js';
import { organization } from '../views.js';

const r = verbs('organization-user');
const base = '/api/organization/v1';
const organizations = { field: 'organizations', type: 'Organization', select: organization };
const row = { param: 'organization_id' };

export default [
  r.list('Organization List', `${base}/`, organizations),
  r.create('Create Organization', `${base}/`, { type: 'Organization', select: organization }),
  r.info('Info Organizations', `${base}/info/`, organizations),
  r.filter('Filter Organizations', `${base}/filter/`, organizations),
  r.get('Get Organization', `${base}/{organization_id}/`, { ...row, field: 'organization', select: organization }),
  r.update('Update Organization', `${base}/{organization_id}/`, { ...row, type: 'Organization', select: organization }),
  // Deleting takes everything of the organization with it: the caller confirms by repeating its name.
  r.remove('Delete Organization', `${base}/{organization_id}/`, {
    ...row,
    type: 'Organization',
    query: { confirm_name: 'input.confirmName' },
  }),
  r.choices('Get Rate Choices', `${base}/rate/choices/`, { field: 'rateChoices' }),
];
