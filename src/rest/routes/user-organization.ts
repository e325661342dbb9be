import type { Group, Route } from '../route.js';
import { verbs } from '../verbs.js';
import { membership } from '../views.js';

/** The user-organization links: the same six operations in both of the legacy groups that serve them. */
export function membershipRoutes(group: Group, base: string): Route[] {
  const r = verbs(group);
  const links = { field: 'memberships', type: 'Membership', select: membership };
  const row = { param: 'user_organization_id' };
  return [
    r.list('List User Organizations', `${base}/`, links),
    r.info('Info User Organizations', `${base}/info/`, links),
    r.filter('Filter User Organizations', `${base}/filter/`, links),
    r.get('Get User Organization', `${base}/{user_organization_id}/`, {
      ...row,
      field: 'membership',
      select: membership,
    }),
    r.update('Update User Role', `${base}/{user_organization_id}/`, {
      ...row,
      type: 'Membership',
      mutation: 'updateMemberRole',
      select: membership,
    }),
    r.remove('Delete User Organization', `${base}/{user_organization_id}/`, {
      ...row,
      type: 'Membership',
      mutation: 'removeMember',
    }),
  ];
}

export default membershipRoutes('user-organization', '/api/users/user-organization/v1');
