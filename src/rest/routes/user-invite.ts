import { verbs } from '../verbs.js';
import { invite } from '../views.js';

const r = verbs('user-invite');
const base = '/api/users/invite/v1';
const invites = { field: 'userInvites', type: 'UserInvite', select: invite };
const row = { param: 'invite_id' };

export default [
  r.list('List User Invites', `${base}/`, invites),
  // The token is shown once and this service sends no mail: the answer carries it beside the invite.
  r.route('Create Invite User', 'POST', `${base}/`, {
    kind: 'object',
    status: 201,
    operation: `mutation CreateInviteUser($input: CreateUserInviteInput!) { createUserInvite(input: $input) { token user_invite: userInvite { ${invite} } } }`,
    body: 'input',
  }),
  r.info('Info User Invites', `${base}/info/`, invites),
  // A newcomer has no key yet: the invite's token is the credential.
  r.route('Register User Invite', 'POST', `${base}/register/`, {
    kind: 'object',
    status: 201,
    public: true,
    operation: `mutation RegisterUserInvite($input: RegisterWithInviteInput!) { registerWithInvite(input: $input) { user_id: userId membership_id: membershipId api_key: apiKey } }`,
    body: 'input',
  }),
  r.get('Get User Invite', `${base}/{invite_id}/`, { ...row, field: 'userInvite', select: invite }),
  r.remove('Delete User Invite', `${base}/{invite_id}/`, { ...row, type: 'UserInvite' }),
  r.route('Resend Invite', 'POST', `${base}/{invite_id}/resend/`, {
    kind: 'object',
    operation: `mutation ResendInvite($input: ResendUserInviteInput!) { resendUserInvite(input: $input) { token user_invite: userInvite { ${invite} } } }`,
    pathParams: { invite_id: 'input.rowId' },
  }),
];
