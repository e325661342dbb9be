import { afterAll, beforeAll, expect, it } from 'vitest';
import { demo } from '../src/db/seed/index.js';
import { startTestServer, type TestServer } from './helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server?.close());

const register = (body: unknown) =>
  fetch(`${server.url}/api/users/invite/v1/register/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

async function invite(email: string): Promise<string> {
  const response = await server.graphql(
    `mutation($email: String!) { createUserInvite(input: { email: $email, role: MEMBER }) { token } }`,
    { email },
  );
  return response.data!.createUserInvite.token;
}

it('registers a newcomer from an invite, without a key: user, membership and first key in one go', async () => {
  const token = await invite('newcomer@example.com');
  const response = await register({ token, first_name: 'Nora', last_name: 'Newcomer' });
  expect(response.status).toBe(201);
  const body = await response.json();
  expect(body).toMatchObject({
    user_id: expect.any(Number),
    membership_id: expect.any(Number),
    api_key: expect.stringMatching(/^wbg_/),
  });
  const me = await server.graphql(
    '{ me { email firstName memberships { edges { node { role organization { name } } } } } }',
    {},
    body.api_key,
  );
  expect(me.data!.me).toEqual({
    email: 'newcomer@example.com',
    firstName: 'Nora',
    memberships: { edges: [{ node: { role: 'MEMBER', organization: { name: demo.organizations.acme.name } } }] },
  });

  const again = await register({ token, first_name: 'Nora' });
  expect(again.status).toBe(422);
  expect((await again.json()).detail[0].loc).toEqual(['body', 'token']);
});

it('checks the body before anything happens, and refuses an e-mail that already has a user', async () => {
  const users = await server.database.prisma.user.count();
  const missing = await register({ token: 'x' });
  expect(missing.status).toBe(422);
  expect((await missing.json()).detail).toEqual([
    { type: 'missing', loc: ['body', 'first_name'], msg: 'Field required', input: { token: 'x' } },
  ]);

  const token = await invite(demo.users.globexMember.email);
  const taken = await register({ token, first_name: 'Greta' });
  expect(taken.status).toBe(409);
  expect(await server.database.prisma.user.count()).toBe(users);
});

it('is the public GraphQL mutation registerWithInvite; an operation asking for anything else without a key is refused as before', async () => {
  const token = await invite('graphql.newcomer@example.com');
  const registration = `mutation($input: RegisterWithInviteInput!) { registerWithInvite(input: $input) { userId membershipId apiKey } }`;
  const mixed = await server.graphql(
    `mutation($input: RegisterWithInviteInput!) { registerWithInvite(input: $input) { userId } createLibrary(input: { name: "x" }) { library { rowId } } }`,
    { input: { token, firstName: 'Gil' } },
    null,
  );
  expect([mixed.status, mixed.data, mixed.errors?.[0].extensions?.code]).toEqual([401, undefined, 'UNAUTHENTICATED']);

  const response = await server.graphql(registration, { input: { token, firstName: 'Gil' } }, null);
  expect(response.errors).toBeUndefined();
  expect(response.data!.registerWithInvite).toEqual({
    userId: expect.any(Number),
    membershipId: expect.any(Number),
    apiKey: expect.stringMatching(/^wbg_/),
  });
});
