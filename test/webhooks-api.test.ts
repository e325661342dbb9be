import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { SecretBox } from '../src/webhooks/secret-box.js';
import { rest } from './helpers/rest.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { Receiver, TEST_ENCRYPTION_KEY, webhookEnv } from './helpers/webhooks.js';

// Webhook endpoints as their administrators manage them, on both doors: who may see and change them,
// what is refused and why, and the secret shown once, sealed at rest, rotated with a grace period.

let server: TestServer;
let acme: number;
let globex: number;
let acmeBoard: number;
let globexBoard: number;

beforeAll(async () => {
  server = await startTestServer(webhookEnv);
  const { prisma } = server.database;
  [acme, globex] = (await prisma.organization.findMany({ orderBy: { id: 'asc' } })).map((org) => org.id);
  acmeBoard = (await prisma.whiteboard.findFirstOrThrow({ where: { organizationId: acme } })).id;
  globexBoard = (await prisma.whiteboard.findFirstOrThrow({ where: { organizationId: globex } })).id;
});
afterAll(() => server?.close());

const endpointFields =
  'rowId id organizationId url description eventTypes whiteboardIds enabled disabledReason previousSecretExpiresAt';
const create = `mutation($input: CreateWebhookEndpointInput!) { createWebhookEndpoint(input: $input) { secret webhookEndpoint { ${endpointFields} } } }`;

async function created(input: Record<string, unknown> = {}, key = server.keys.owner) {
  const answer = await server.graphql(
    create,
    { input: { organizationId: acme, url: 'https://hooks.example.com/in', eventTypes: ['*'], ...input } },
    key,
  );
  expect(answer.errors).toBeUndefined();
  return answer.data!.createWebhookEndpoint as { secret: string; webhookEndpoint: Record<string, any> };
}

const errorOf = (answer: { errors?: { extensions?: Record<string, unknown>; message: string }[] }) => ({
  code: answer.errors?.[0]?.extensions?.code,
  field: answer.errors?.[0]?.extensions?.field,
});

describe('adding an endpoint', () => {
  it('shows its signing secret once and keeps it only sealed under WEBHOOK_ENCRYPTION_KEY', async () => {
    const { secret, webhookEndpoint } = await created({ description: ' CRM sync ', whiteboardIds: [acmeBoard] });
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(webhookEndpoint).toMatchObject({
      organizationId: acme,
      url: 'https://hooks.example.com/in',
      description: 'CRM sync',
      eventTypes: ['*'],
      whiteboardIds: [acmeBoard],
      enabled: true,
      disabledReason: null,
      previousSecretExpiresAt: null,
    });
    const row = await server.database.prisma.webhookEndpoint.findUniqueOrThrow({
      where: { id: webhookEndpoint.rowId },
    });
    expect(row.secret).not.toContain(secret.slice(6));
    expect(new SecretBox([Buffer.from(TEST_ENCRYPTION_KEY, 'base64')]).open(row.secret, acme)).toBe(secret);
    const read = await server.graphql(`query($id: ID!) { node(id: $id) { ... on WebhookEndpoint { url } } }`, {
      id: webhookEndpoint.id,
    });
    expect(read.data).toEqual({ node: { url: 'https://hooks.example.com/in' } });
    expect(JSON.stringify(read)).not.toContain('whsec_');
    // The action log tells who added it.
    const owner = (await server.graphql('{ me { rowId } }')).data!.me.rowId;
    expect(
      await server.database.prisma.userActionLog.findFirst({
        where: { entityType: 'WebhookEndpoint', entityId: webhookEndpoint.rowId, method: 'CREATE' },
      }),
    ).toMatchObject({ userId: owner, organizationId: acme });
  });

  it('refuses what it could not deliver to, naming the field', async () => {
    const refused = async (input: Record<string, unknown>) =>
      errorOf(
        await server.graphql(create, {
          input: { organizationId: acme, url: 'https://hooks.example.com/in', eventTypes: ['*'], ...input },
        }),
      );
    expect(await refused({ url: 'http://hooks.example.com/in' })).toEqual({
      code: 'BAD_USER_INPUT',
      field: 'input.url',
    });
    expect(await refused({ url: 'https://169.254.169.254/latest/meta-data' })).toEqual({
      code: 'BAD_USER_INPUT',
      field: 'input.url',
    });
    expect(await refused({ url: 'https://user:secret@hooks.example.com/' })).toEqual({
      code: 'BAD_USER_INPUT',
      field: 'input.url',
    });
    expect(await refused({ eventTypes: [] })).toEqual({ code: 'BAD_USER_INPUT', field: 'input.eventTypes' });
    expect(await refused({ eventTypes: ['slide.updated', 'slide.renamed'] })).toEqual({
      code: 'BAD_USER_INPUT',
      field: 'input.eventTypes[1]',
    });
    expect(await refused({ whiteboardIds: [acmeBoard, globexBoard] })).toEqual({
      code: 'BAD_USER_INPUT',
      field: 'input.whiteboardIds[1]',
    });
    expect(await refused({ description: 'x'.repeat(256) })).toEqual({
      code: 'BAD_USER_INPUT',
      field: 'input.description',
    });
    expect(await refused({ organizationId: 999_999 })).toEqual({ code: 'NOT_FOUND', field: undefined });
    const answer = await rest(server, 'POST', '/api/webhook/v1/endpoints/', {
      json: { organization_id: acme, url: 'ftp://hooks.example.com/', event_types: ['*'] },
    });
    expect(answer.status).toBe(422);
    expect(answer.body.detail[0].loc).toEqual(['body', 'url']);
  });

  it('holds at most 50 endpoints in an organization', async () => {
    const { prisma } = server.database;
    const present = await prisma.webhookEndpoint.count({ where: { organizationId: globex } });
    await prisma.webhookEndpoint.createMany({
      data: Array.from({ length: 50 - present }, () => ({
        organizationId: globex,
        url: 'https://hooks.example.com/many',
        eventTypes: ['*'],
        secret: 'sealed',
      })),
    });
    const answer = await server.graphql(
      create,
      { input: { organizationId: globex, url: 'https://hooks.example.com/in', eventTypes: ['*'] } },
      server.keys.globexOwner,
    );
    expect(errorOf(answer)).toEqual({ code: 'BAD_USER_INPUT', field: 'input.organizationId' });
    await prisma.webhookEndpoint.deleteMany({ where: { organizationId: globex } });
  });
});

describe('who sees and manages endpoints', () => {
  const list = '{ webhookEndpoints { totalCount nodes { rowId url } } }';

  it("only the organization's owners and administrators, whatever the door", async () => {
    const { webhookEndpoint } = await created({ url: 'https://hooks.example.com/secret-token-in-path' });
    const seen = async (key: string) => {
      const answer = await server.graphql(
        `query($rowId: Int!, $id: ID!) { webhookEndpoint(rowId: $rowId) { rowId } node(id: $id) { id } ${list.slice(1, -1)} }`,
        { rowId: webhookEndpoint.rowId, id: webhookEndpoint.id },
        key,
      );
      const rows = answer.data!.webhookEndpoints.nodes.map((node: { rowId: number }) => node.rowId);
      const byRest = await rest(server, 'GET', `/api/webhook/v1/endpoints/${webhookEndpoint.rowId}/`, { key });
      return [!!answer.data!.webhookEndpoint, !!answer.data!.node, rows.includes(webhookEndpoint.rowId), byRest.status];
    };
    expect(await seen(server.keys.owner)).toEqual([true, true, true, 200]);
    expect(await seen(server.keys.admin)).toEqual([true, true, true, 200]);
    // MEMBER in Acme (and ADMIN in Globex), VIEWER, another organization's owner: no such row.
    for (const key of [server.keys.member, server.keys.viewer, server.keys.globexOwner])
      expect(await seen(key)).toEqual([false, false, false, 404]);
    expect(await seen(server.keys.platformAdmin)).toEqual([true, true, true, 200]);
  });

  it('refuses changes to those who may not manageWebhooks, and to keys without the ADMIN permission', async () => {
    const { webhookEndpoint } = await created();
    const disable = `mutation($rowId: Int!) { disableWebhookEndpoint(input: { rowId: $rowId }) { webhookEndpoint { enabled } } }`;
    const code = async (key: string) =>
      (await server.graphql(disable, { rowId: webhookEndpoint.rowId }, key)).errors?.[0]?.extensions?.code;
    expect(await code(server.keys.member)).toBe('NOT_FOUND');
    expect(await code(server.keys.viewer)).toBe('FORBIDDEN');
    expect(
      errorOf(
        await server.graphql(
          create,
          { input: { organizationId: acme, url: 'https://a.example/', eventTypes: ['*'] } },
          server.keys.member,
        ),
      ).code,
    ).toBe('FORBIDDEN');
    const createdBy = await rest(server, 'POST', '/api/webhook/v1/endpoints/', {
      key: server.keys.member,
      json: { organization_id: acme, url: 'https://a.example/', event_types: ['*'] },
    });
    expect(createdBy.status).toBe(403);
    expect(await code(server.keys.owner)).toBeUndefined();
  });

  it('stops showing them to an administrator demoted to member at once, planned reads included', async () => {
    await created();
    const { prisma } = server.database;
    const adam = await prisma.user.findFirstOrThrow({ where: { email: 'adam.admin@acme.example' } });
    const membership = await prisma.userOrganization.findFirstOrThrow({
      where: { userId: adam.id, organizationId: acme },
    });
    expect((await server.graphql(list, {}, server.keys.admin)).data!.webhookEndpoints.totalCount).toBeGreaterThan(0);
    const demote = `mutation($rowId: Int!, $role: Role!) { updateMemberRole(input: { rowId: $rowId, role: $role }) { membership { role } } }`;
    expect((await server.graphql(demote, { rowId: membership.id, role: 'MEMBER' })).errors).toBeUndefined();
    try {
      // The same query text, whose statement the planner has kept for this caller.
      expect((await server.graphql(list, {}, server.keys.admin)).data!.webhookEndpoints).toEqual({
        totalCount: 0,
        nodes: [],
      });
    } finally {
      await server.graphql(demote, { rowId: membership.id, role: 'ADMIN' });
    }
  });
});

describe('changing an endpoint', () => {
  it('updates what is given, disables and enables it, and deletes it with its deliveries, on REST', async () => {
    const answer = await rest(server, 'POST', '/api/webhook/v1/endpoints/', {
      json: { organization_id: acme, url: 'https://hooks.example.com/rest', event_types: ['slide.*'] },
    });
    expect(answer.status).toBe(201);
    expect(answer.body.secret).toMatch(/^whsec_/);
    const id = answer.body.webhook_endpoint.id;
    expect(answer.body.webhook_endpoint).toMatchObject({
      url: 'https://hooks.example.com/rest',
      event_types: ['slide.*'],
    });
    const path = `/api/webhook/v1/endpoints/${id}/`;
    const updated = await rest(server, 'PUT', path, {
      json: { event_types: ['slide.created', 'whiteboard.*'], whiteboard_ids: [acmeBoard] },
    });
    expect(updated.body).toMatchObject({
      url: 'https://hooks.example.com/rest',
      event_types: ['slide.created', 'whiteboard.*'],
      whiteboard_ids: [acmeBoard],
    });
    expect((await rest(server, 'POST', `${path}disable/`)).body).toMatchObject({
      enabled: false,
      disabled_reason: 'ADMINISTRATOR',
    });
    expect((await rest(server, 'POST', `${path}enable/`)).body).toMatchObject({ enabled: true, disabled_reason: null });
    const listed = await rest(
      server,
      'GET',
      `/api/webhook/v1/endpoints/?organization_id=${acme}&url=https://hooks.example.com/rest`,
    );
    expect(listed.body.map((row: { id: number }) => row.id)).toEqual([id]);
    await server.database.prisma.webhookDelivery.create({
      data: {
        endpointId: id,
        messageId: 'msg_x',
        eventType: 'slide.created',
        lane: acmeBoard,
        body: '{}',
        state: 'DEAD',
      },
    });
    expect((await rest(server, 'DELETE', path)).status).toBe(204);
    expect((await rest(server, 'GET', path)).status).toBe(404);
    expect(await server.database.prisma.webhookDelivery.count({ where: { endpointId: id } })).toBe(0);
  });

  it('rotates the secret: both sign during the grace period, then only the new one', async () => {
    const receiver = await Receiver.start();
    try {
      const { secret, webhookEndpoint } = await created({ url: receiver.url });
      const rotate = `mutation($input: RotateWebhookEndpointSecretInput!) { rotateWebhookEndpointSecret(input: $input) { secret webhookEndpoint { previousSecretExpiresAt } } }`;
      const rotated = (await server.graphql(rotate, { input: { rowId: webhookEndpoint.rowId } })).data!
        .rotateWebhookEndpointSecret;
      expect(rotated.secret).not.toBe(secret);
      const expires = Date.parse(rotated.webhookEndpoint.previousSecretExpiresAt);
      expect(Math.abs(expires - Date.now() - 24 * 3_600_000)).toBeLessThan(60_000);
      const deliver = (messageId: string) =>
        server.database.prisma.webhookDelivery.create({
          data: { endpointId: webhookEndpoint.rowId, messageId, eventType: 'slide.updated', lane: 0, body: '{"n":1}' },
        });
      // A receiver that still has the old secret verifies; so does one that has the new.
      for (const [messageId, known] of [
        ['msg_old', secret],
        ['msg_new', rotated.secret],
      ] as const) {
        receiver.secret = known;
        await deliver(messageId);
        const [received] = (await receiver.waitFor(receiver.received.length + 1)).slice(-1);
        expect([received.messageId, received.verified, received.signatures.split(' ').length]).toEqual([
          messageId,
          true,
          2,
        ]);
      }
      const again = (
        await rest(server, 'POST', `/api/webhook/v1/endpoints/${webhookEndpoint.rowId}/rotate-secret/`, {
          json: { grace_hours: 0 },
        })
      ).body;
      expect(again.webhook_endpoint.previous_secret_expires_at).toBeNull();
      receiver.secret = rotated.secret;
      await deliver('msg_after');
      const [last] = (await receiver.waitFor(3)).slice(-1);
      expect([last.verified, last.signatures.split(' ').length]).toEqual([false, 1]);
      receiver.secret = again.secret;
      expect(
        errorOf(await server.graphql(rotate, { input: { rowId: webhookEndpoint.rowId, graceHours: 169 } })),
      ).toEqual({
        code: 'BAD_USER_INPUT',
        field: 'input.graceHours',
      });
    } finally {
      await receiver.close();
    }
  });
});

describe('enabling, disabling and rotating at an expected version', () => {
  const mutationOf = (name: string, payload = 'webhookEndpoint { version enabled }') =>
    `mutation($input: ${name[0].toUpperCase()}${name.slice(1)}Input!) { ${name}(input: $input) { ${payload} } }`;
  const changes = [
    ['disableWebhookEndpoint', 'webhookEndpoint { version enabled }'],
    ['enableWebhookEndpoint', 'webhookEndpoint { version enabled }'],
    ['rotateWebhookEndpointSecret', 'secret webhookEndpoint { version enabled }'],
  ] as const;

  it('change nothing at a stale version and answer CONFLICT with the endpoint as it is, without its secrets', async () => {
    const { webhookEndpoint } = await created();
    const before = await server.database.prisma.webhookEndpoint.findUniqueOrThrow({
      where: { id: webhookEndpoint.rowId },
    });
    for (const [name, payload] of changes) {
      const stale = await server.graphql(mutationOf(name, payload), {
        input: { rowId: webhookEndpoint.rowId, expectedVersion: before.version + 1 },
      });
      expect(errorOf(stale), name).toEqual({ code: 'CONFLICT', field: 'input.expectedVersion' });
      const { currentVersion, current } = stale.errors![0].extensions as Record<string, any>;
      expect(currentVersion).toBe(before.version);
      expect(current).toMatchObject({ id: webhookEndpoint.rowId, version: before.version, enabled: true });
      for (const column of ['secret', 'previousSecret', 'cursor']) expect(current).not.toHaveProperty(column);
    }
    // The change log's reader moves the cursor meanwhile, which is no change of the endpoint (nor of its version).
    const { cursor: _, ...unchanged } = before;
    expect(
      await server.database.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id: webhookEndpoint.rowId } }),
    ).toMatchObject(unchanged);
  });

  it('change the endpoint at its version, raising it by one', async () => {
    const { webhookEndpoint } = await created();
    let { version } = await server.database.prisma.webhookEndpoint.findUniqueOrThrow({
      where: { id: webhookEndpoint.rowId },
    });
    for (const [name, payload] of changes) {
      const checked = await server.graphql(mutationOf(name, payload), {
        input: { rowId: webhookEndpoint.rowId, expectedVersion: version },
      });
      expect(checked.errors, name).toBeUndefined();
      expect(checked.data![name].webhookEndpoint.version).toBe(++version);
    }
  });

  it('on REST: If-Match on the enable, disable and rotate-secret routes, 412 with the current ETag when stale', async () => {
    const { webhookEndpoint } = await created();
    const path = `/api/webhook/v1/endpoints/${webhookEndpoint.rowId}/`;
    const read = await rest(server, 'GET', path);
    const etag = read.headers.get('etag')!;
    expect(etag).toMatch(/^"\d+"$/);
    for (const action of ['disable', 'enable', 'rotate-secret']) {
      const stale = await rest(server, 'POST', `${path}${action}/`, { headers: { 'If-Match': '"999"' } });
      expect(stale.status, action).toBe(412);
      expect(stale.headers.get('etag')).toBe(etag);
    }
    expect((await rest(server, 'GET', path)).headers.get('etag')).toBe(etag);
    const disabled = await rest(server, 'POST', `${path}disable/`, { headers: { 'If-Match': etag } });
    expect(disabled.status).toBe(200);
    expect(disabled.body.enabled).toBe(false);
    const rotated = await rest(server, 'POST', `${path}rotate-secret/`, {
      headers: { 'If-Match': disabled.headers.get('etag')! },
    });
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
  });
});

describe('a gateway without WEBHOOK_ENCRYPTION_KEY', () => {
  it('refuses to add endpoints, saying what to set', async () => {
    const { startInstance } = await import('./helpers/server.js');
    const off = await startInstance({});
    try {
      const response = await fetch(`${off.url}/api/webhook/v1/endpoints/`, {
        method: 'POST',
        headers: { 'x-api-key': server.keys.owner, 'content-type': 'application/json' },
        body: JSON.stringify({ url: 'https://hooks.example.com/', event_types: ['*'] }),
      });
      expect(response.status).toBe(403);
      expect((await response.json()).detail).toMatch(/WEBHOOK_ENCRYPTION_KEY/);
    } finally {
      await off.close();
    }
  });

  it('refuses a key that is not base64 of 32 bytes, and webhook settings without a key', () => {
    expect(() => loadConfig({ WEBHOOK_ENCRYPTION_KEY: 'short' })).toThrow(/base64 of 32 bytes/);
    expect(() => loadConfig({ WEBHOOK_CONCURRENCY: '2' })).toThrow(
      /WEBHOOK_CONCURRENCY is set but WEBHOOK_ENCRYPTION_KEY is not/,
    );
    expect(
      loadConfig({ WEBHOOK_ENCRYPTION_KEY: `${TEST_ENCRYPTION_KEY},${Buffer.alloc(32, 9).toString('base64')}` })
        .webhooks,
    ).toMatchObject({ concurrency: 4, allowPrivate: false, pollMs: 50 });
  });
});

describe('the OpenAPI document', () => {
  it('has the webhook group, beside the legacy ones', async () => {
    const document = (await rest(server, 'GET', '/api/openapi.json')).body;
    expect(document.tags.map((tag: { name: string }) => tag.name)).toContain('webhook');
    expect(document.paths['/api/webhook/v1/endpoints/{endpoint_id}/rotate-secret/'].post.tags).toEqual(['webhook']);
  });
});
