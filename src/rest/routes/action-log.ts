import { verbs } from '../verbs.js';
import { actionLog } from '../views.js';

const r = verbs('action-log');
const base = '/api/users/action-log/v1';
const logs = { field: 'actionLogs', type: 'UserActionLog', select: actionLog };

export default [
  r.list('User Action Log List', `${base}/`, logs),
  r.info('Info User Action Logs', `${base}/info/`, logs),
  r.filter('Filter User Action Logs', `${base}/filter/`, logs),
  r.get('Get User Action Log', `${base}/{action_log_id}/`, {
    param: 'action_log_id',
    field: 'actionLog',
    select: actionLog,
  }),
];
