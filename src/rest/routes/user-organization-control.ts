import { verbs } from '../verbs.js';
import { membershipRoutes } from './user-organization.js';

const base = '/api/users/control/user-organization/v1';

export default [
  ...membershipRoutes('user-organization-control', base),
  verbs('user-organization-control').choices('Get Organization Choices', `${base}/organization/choices/`, {
    field: 'organizationChoices',
  }),
];
