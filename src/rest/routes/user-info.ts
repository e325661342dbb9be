import { verbs } from '../verbs.js';
import { user } from '../views.js';

const r = verbs('user-info');
const base = '/api/users/info/v1';

// The caller's own user: no id in the paths.
export default [
  r.choices('Get Organization Choices', `${base}/organization/choices/`, { field: 'organizationChoices' }),
  r.read('Get User', `${base}/`, { field: 'me', select: user }),
  r.submit('Update User', 'PUT', `${base}/`, { mutation: 'updateMe', result: `user { ${user} }` }),
  r.submit('Update User Active Organization', 'PUT', `${base}/active-organization/`, {
    mutation: 'updateActiveOrganization',
    result: `user { ${user} }`,
  }),
];
