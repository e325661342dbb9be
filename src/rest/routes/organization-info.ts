import { verbs } from '../verbs.js';
import { organization, rate } from '../views.js';

export default [
  verbs('organization-info').read('Organization Info', '/api/organization/info/v1/', {
    field: 'organizationInfo',
    select: `organization { ${organization} rate { ${rate} } }
      member_count: memberCount library_count: libraryCount whiteboard_count: whiteboardCount archived_whiteboard_count: archivedWhiteboardCount`,
    args: { organizationId: { query: 'organization_id', type: 'Int' } },
  }),
];
