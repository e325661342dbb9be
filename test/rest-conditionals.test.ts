import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demo } from '../src/db/seed/index.js';
import { forEachRun, seedOf } from './helpers/properties.js';
import { rest } from './helpers/rest.js';
import { ofTheRequest, startTestServer, type TestServer } from './helpers/server.js';

// HTTP conditionals of the REST door (RFC 9110, issue 41): a row's version travels only as its
// strong ETag; If-None-Match answers 304, If-Match makes PUT and DELETE conditional (412 when stale).

let server: TestServer;
let board = 0;
let stream = 0;
beforeAll(async () => {
  server = await startTestServer();
  const prisma = server.database.prisma;
  const row = await prisma.whiteboard.findFirstOrThrow({ where: { name: demo.whiteboards.platform.name } });
  board = row.id;
  stream = (await prisma.dataStream.findFirstOrThrow({ where: { whiteboardId: board } })).id;
});
afterAll(() => server?.close());

const prisma = () => server.database.prisma;
const streamPath = () => `/api/whiteboard/v1/data-stream/${stream}/`;
const boardPath = () => `/api/whiteboard/v1/${board}/`;
const streamVersion = async () => (await prisma().dataStream.findUniqueOrThrow({ where: { id: stream } })).version;

describe('a row answered alone', () => {
  it('GET answers its version as a strong ETag and keeps the legacy fields', async () => {
    const version = await streamVersion();
    const read = await rest(server, 'GET', streamPath());
    expect(read.status).toBe(200);
    expect(read.headers.get('etag')).toBe(`"${version}"`);
    expect(Object.keys(read.body)).toEqual([
      'id',
      'name',
      'description',
      'icon',
      'color',
      'author_id',
      'whiteboard_id',
      'created_at',
      'updated_at',
    ]);
  });

  it('If-None-Match with the current tag (or a weak one, or *) answers 304 without a body', async () => {
    const tag = `"${await streamVersion()}"`;
    for (const match of [tag, `W/${tag}`, `"999", ${tag}`, '*']) {
      const cached = await rest(server, 'GET', streamPath(), { headers: { 'if-none-match': match } });
      expect(cached.status).toBe(304);
      expect(cached.body).toBeUndefined();
      expect(cached.headers.get('etag')).toBe(tag);
    }
    const changed = await rest(server, 'GET', streamPath(), { headers: { 'if-none-match': '"999"' } });
    expect(changed.status).toBe(200);
  });

  it('PUT with the current tag writes in as many statements as without, and answers the new tag', async () => {
    const version = await streamVersion();
    const { result, statements } = await server.countStatements(() =>
      rest(server, 'PUT', streamPath(), { json: { name: 'Checked' }, headers: { 'if-match': `"${version}"` } }),
    );
    expect(result.status).toBe(200);
    expect(result.body.name).toBe('Checked');
    expect(result.body._v).toBeUndefined();
    expect(result.headers.get('etag')).toBe(`"${version + 1}"`);
    const plain = await server.countStatements(() => rest(server, 'PUT', streamPath(), { json: { name: 'Plain' } }));
    expect(plain.result.headers.get('etag')).toBe(`"${version + 2}"`);
    expect(ofTheRequest(statements)).toHaveLength(ofTheRequest(plain.statements).length);
  });

  it('PUT with a stale tag is 412 with the current tag, and changes nothing', async () => {
    const version = await streamVersion();
    const stale = await rest(server, 'PUT', streamPath(), {
      json: { name: 'Lost' },
      headers: { 'if-match': `"${version - 1}"` },
    });
    expect(stale.status).toBe(412);
    expect(stale.headers.get('etag')).toBe(`"${version}"`);
    expect(await streamVersion()).toBe(version);
    expect((await prisma().dataStream.findUniqueOrThrow({ where: { id: stream } })).name).not.toBe('Lost');
  });

  it('If-Match: a weak tag never matches, * matches any, a list matches if one of its tags does', async () => {
    const version = await streamVersion();
    const weak = await rest(server, 'PUT', streamPath(), {
      json: { name: 'Weak' },
      headers: { 'if-match': `W/"${version}"` },
    });
    expect(weak.status).toBe(412);
    const any = await rest(server, 'PUT', streamPath(), { json: { name: 'Any' }, headers: { 'if-match': '*' } });
    expect(any.status).toBe(200);
    const list = await rest(server, 'PUT', streamPath(), {
      json: { name: 'Listed' },
      headers: { 'if-match': `"1000", "${version + 1}"` },
    });
    expect(list.status).toBe(200);
    expect(list.headers.get('etag')).toBe(`"${version + 2}"`);
    const none = await rest(server, 'PUT', streamPath(), {
      json: { name: 'None' },
      headers: { 'if-match': '"1000", "1001"' },
    });
    expect(none.status).toBe(412);
    expect(none.headers.get('etag')).toBe(`"${version + 2}"`);
  });

  it('the version is no body field: expected_version in a PUT body is not read', async () => {
    const version = await streamVersion();
    const put = await rest(server, 'PUT', streamPath(), { json: { name: 'Body', expected_version: version - 5 } });
    expect(put.status).toBe(200);
  });
});

describe('a row whose view embeds other rows', () => {
  it("a board's tag names its author's and organization's versions too, and changes when they change", async () => {
    const read = await rest(server, 'GET', boardPath());
    const tag = read.headers.get('etag')!;
    const row = await prisma().whiteboard.findUniqueOrThrow({
      where: { id: board },
      include: { author: true, organization: true },
    });
    expect(tag).toBe(`"${row.version}.${row.author.version}.${row.organization.version}"`);
    expect(Object.keys(read.body)).not.toContain('_v');
    expect(read.body.author).not.toHaveProperty('_v');
    // Renaming the organization changes the board's answer, so its tag.
    await prisma().organization.update({
      where: { id: row.organizationId },
      data: { name: `${row.organization.name}` },
    });
    const after = await rest(server, 'GET', boardPath(), { headers: { 'if-none-match': tag } });
    expect(after.status).toBe(200);
    expect(after.headers.get('etag')).toBe(`"${row.version}.${row.author.version}.${row.organization.version + 1}"`);
  });

  it('If-Match compares the whole tag: a stale embedded version is 412, the current tag writes', async () => {
    const current = (await rest(server, 'GET', boardPath())).headers.get('etag')!;
    const [version, author, organization] = current.slice(1, -1).split('.').map(Number);
    const stale = await rest(server, 'PUT', boardPath(), {
      json: { name: 'Platform' },
      headers: { 'if-match': `"${version}.${author}.${organization - 1}"` },
    });
    expect(stale.status).toBe(412);
    expect(stale.headers.get('etag')).toBe(current);
    const fresh = await rest(server, 'PUT', boardPath(), {
      json: { name: 'Platform' },
      headers: { 'if-match': current },
    });
    expect(fresh.status).toBe(200);
    expect(fresh.headers.get('etag')).toBe(`"${version + 1}.${author}.${organization}"`);
  });
});

describe('DELETE with If-Match', () => {
  it('a stale tag is 412 and deletes nothing; the current one deletes', async () => {
    const created = await rest(server, 'POST', `/api/whiteboard/v1/data-stream/`, {
      json: { name: 'Short-lived', whiteboard_id: board },
    });
    expect(created.status).toBe(201);
    const path = `/api/whiteboard/v1/data-stream/${created.body.id}/`;
    const tag = created.headers.get('etag')!;
    expect(tag).toBe('"1"');
    const stale = await rest(server, 'DELETE', path, { headers: { 'if-match': '"7"' } });
    expect(stale.status).toBe(412);
    expect(stale.headers.get('etag')).toBe(tag);
    expect(await prisma().dataStream.findUnique({ where: { id: created.body.id } })).not.toBeNull();
    const removed = await rest(server, 'DELETE', path, { headers: { 'if-match': tag } });
    expect(removed.status).toBe(204);
    expect(await prisma().dataStream.findUnique({ where: { id: created.body.id } })).toBeNull();
  });
});

// Random conditional writes on rows answered alone, of several types: each If-Match the caller might
// send (the current tag, a stale or unknown one, a weak one, `*`, a list, none) must decide as RFC
// 9110 says, and the row's version must move exactly when the answer says it wrote. Drawn by
// fast-check (helpers/properties.ts): CONDITIONAL_SEED=<seed> replays a run.
describe('random conditional writes', () => {
  const seed = seedOf('CONDITIONAL_SEED', 'test/rest-conditionals.test.ts');
  const rows = [
    { model: 'dataStream', path: '/api/whiteboard/v1/data-stream/', body: (n: number) => ({ name: `Stream ${n}` }) },
    { model: 'whiteboardObjectInstance', path: '/api/whiteboard/v1/object-instance/', body: (n: number) => ({ x: n }) },
    { model: 'library', path: '/api/library/control/v1/', body: (n: number) => ({ name: `Library ${n}` }) },
    {
      model: 'whiteboardHighlight',
      path: '/api/whiteboard/v1/highlight/',
      body: (n: number) => ({ name: `Rule ${n}` }),
    },
  ] as const;
  const kinds = ['current', 'stale', 'unknown', 'weak', 'any', 'list', 'none'] as const;

  it('decide as the tags say', async () => {
    const versionOf = async (model: (typeof rows)[number]['model'], id: number) =>
      ((await (prisma()[model] as any).findUniqueOrThrow({ where: { id } })) as { version: number }).version;
    const ids = new Map<string, number>();
    for (const row of rows)
      ids.set(row.model, ((await (prisma()[row.model] as any).findFirstOrThrow({})) as { id: number }).id);
    await forEachRun(seed, 60, async (random) => {
      const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
      const row = pick(rows);
      const id = ids.get(row.model)!;
      const kind = pick(kinds);
      const before = await versionOf(row.model, id);
      const tag = `"${before}"`;
      const ifMatch = {
        current: tag,
        stale: `"${before - 1}"`,
        unknown: '"not-a-version"',
        weak: `W/${tag}`,
        any: '*',
        list: `"${before + 50}", ${tag}`,
        none: undefined,
      }[kind];
      const context = `CONDITIONAL_SEED=${seed}: PUT ${row.path}${id}/ If-Match ${ifMatch ?? '(none)'}`;
      const put = await rest(server, 'PUT', `${row.path}${id}/`, {
        json: row.body(before),
        headers: ifMatch ? { 'if-match': ifMatch } : {},
      });
      const after = await versionOf(row.model, id);
      if (['current', 'any', 'list', 'none'].includes(kind)) {
        expect(put.status, context).toBe(200);
        expect(put.headers.get('etag'), context).toBe(`"${before + 1}"`);
        expect(after, context).toBe(before + 1);
      } else {
        expect(put.status, context).toBe(412);
        expect(put.headers.get('etag'), context).toBe(tag);
        expect(after, context).toBe(before);
      }
      const read = await rest(server, 'GET', `${row.path}${id}/`, { headers: { 'if-none-match': `"${after}"` } });
      expect(read.status, context).toBe(304);
    });
  });
});

describe('archiving over REST with If-Match', () => {
  it("compares the board's tag, as its GET answers it", async () => {
    const current = (await rest(server, 'GET', boardPath())).headers.get('etag')!;
    const stale = await rest(server, 'PUT', `${boardPath()}archive/`, { headers: { 'if-match': '"1.1.1"' } });
    expect(stale.status).toBe(412);
    expect(stale.headers.get('etag')).toBe(current);
    const archived = await rest(server, 'PUT', `${boardPath()}archive/`, { headers: { 'if-match': current } });
    expect(archived.status).toBe(200);
    await rest(server, 'PUT', `/api/whiteboard/archive/v1/${board}/unarchive/`);
  });
});

describe('If-Match on the routes of the caller, an attribute value and a webhook endpoint', () => {
  const me = '/api/users/info/v1/';
  const owner = () => prisma().user.findUniqueOrThrow({ where: { email: demo.users.owner.email } });

  it("the caller's own user: its update and its switch of organization compare the user's tag", async () => {
    const user = await owner();
    const read = await rest(server, 'GET', me);
    expect(read.headers.get('etag')).toBe(`"${user.version}"`);
    const changes = [
      [me, { first_name: user.firstName }],
      [`${me}active-organization/`, { organization_id: user.activeOrganizationId }],
    ] as const;
    let version = user.version;
    for (const [path, json] of changes) {
      const stale = await rest(server, 'PUT', path, { json, headers: { 'if-match': `"${version - 1}"` } });
      expect(stale.status, path).toBe(412);
      expect(stale.headers.get('etag'), path).toBe(`"${version}"`);
      expect((await owner()).version).toBe(version);
      // A list is compared with the tag the GET of the user answers.
      const written = await rest(server, 'PUT', path, { json, headers: { 'if-match': `"999", "${version}"` } });
      expect(written.status, path).toBe(200);
      expect(written.headers.get('etag'), path).toBe(`"${++version}"`);
    }
  });

  it("an attribute value's PUT compares the value row's tag", async () => {
    const value = await prisma().whiteboardObjectAttribute.findFirstOrThrow({
      where: { attribute: { type: 'STRING' } },
      orderBy: { id: 'asc' },
    });
    const path = `/api/whiteboard/v1/object-attribute/${value.id}/`;
    const stale = await rest(server, 'PUT', path, {
      json: { value: 'Lost' },
      headers: { 'if-match': `"${value.version + 1}"` },
    });
    expect(stale.status).toBe(412);
    expect(stale.headers.get('etag')).toBe(`"${value.version}"`);
    const written = await rest(server, 'PUT', path, {
      json: { value: 'Kept' },
      headers: { 'if-match': `"${value.version}"` },
    });
    expect(written.status).toBe(200);
    expect(written.body.value_str).toBe('Kept');
    expect(written.headers.get('etag')).toBe(`"${value.version + 1}"`);
  });

  it('the OpenAPI document names If-Match and 412 on them, and on no reorder', async () => {
    const { paths } = await (await fetch(`${server.url}/api/openapi.json`)).json();
    const ifMatch = (operation: { parameters?: { name: string }[]; responses: Record<string, unknown> }) =>
      !!operation.parameters?.some((parameter) => parameter.name === 'If-Match') && '412' in operation.responses;
    for (const [path, method] of [
      [me, 'put'],
      [`${me}active-organization/`, 'put'],
      ['/api/whiteboard/v1/object-attribute/{object_attribute_id}/', 'put'],
      ['/api/webhook/v1/endpoints/{endpoint_id}/enable/', 'post'],
      ['/api/webhook/v1/endpoints/{endpoint_id}/disable/', 'post'],
      ['/api/webhook/v1/endpoints/{endpoint_id}/rotate-secret/', 'post'],
    ])
      expect(ifMatch(paths[path][method]), `${method} ${path}`).toBe(true);
    expect(ifMatch(paths['/api/whiteboard/v1/data-stream-slide/order/'].put)).toBe(false);
    expect(ifMatch(paths['/api/webhook/v1/endpoints/{endpoint_id}/redeliver/'].post)).toBe(false);
  });
});
