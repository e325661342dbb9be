import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { loadConfig } from '../src/config.js';
import { countRows } from '../src/db/seed/index.js';
import { createApp } from '../src/http/app.js';
import { restApi } from '../src/rest/index.js';
import type { Route } from '../src/rest/route.js';
import { routes } from '../src/rest/routes/index.js';
import { schema } from '../src/schema/index.js';
import { rest } from './helpers/rest.js';
import { startTestServer, type TestServer } from './helpers/server.js';

// The error forms of the legacy (FastAPI) service, as the REST layer answers them.

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server?.close());

/** A board of the other demo organization, which the owner's key must not see. */
async function otherOrganizationsBoard(): Promise<number> {
  const boards = await server.database.prisma.whiteboard.findMany({
    where: { organization: { name: 'Globex Logistics' } },
    select: { id: true },
  });
  return boards[0].id;
}

describe('authentication comes first', () => {
  it('answers 403 "Not authenticated" without a key, even when the parameters are invalid too', async () => {
    const response = await rest(server, 'GET', '/api/whiteboard/v1/abc/', { key: null });
    expect([response.status, response.body]).toEqual([403, { detail: 'Not authenticated' }]);
  });

  it('answers the same for a key that does not exist', async () => {
    const response = await rest(server, 'POST', '/api/whiteboard/v1/', { key: 'wbk_not-a-key', json: [] });
    expect([response.status, response.body]).toEqual([403, { detail: 'Not authenticated' }]);
  });

  it('answers 403 with the reason when the key may not do it', async () => {
    const response = await rest(server, 'PUT', '/api/whiteboard/v1/2/archive/', { key: server.keys.viewer });
    expect(response.status).toBe(403);
    expect(response.body.detail).toEqual(expect.any(String));
    expect(response.body.detail).not.toBe('Not authenticated');
  });
});

describe('422: invalid values, reported before anything runs', () => {
  it('reports a path value that is not an integer exactly as FastAPI does', async () => {
    const response = await rest(server, 'GET', '/api/whiteboard/v1/abc/');
    expect([response.status, response.body]).toEqual([
      422,
      {
        detail: [
          {
            type: 'int_parsing',
            loc: ['path', 'whiteboard_id'],
            msg: 'Input should be a valid integer, unable to parse string as an integer',
            input: 'abc',
          },
        ],
      },
    ]);
  });

  it('reports every bad query value at once, with its bound', async () => {
    const response = await rest(
      server,
      'GET',
      '/api/whiteboard/v1/filter/?limit=101&offset=-1&in_the_archive=maybe&ordering=colour',
    );
    expect(response.status).toBe(422);
    expect(response.body.detail).toEqual([
      {
        type: 'less_than_equal',
        loc: ['query', 'limit'],
        msg: 'Input should be less than or equal to 100',
        input: '101',
        ctx: { le: 100 },
      },
      {
        type: 'greater_than_equal',
        loc: ['query', 'offset'],
        msg: 'Input should be greater than or equal to 0',
        input: '-1',
        ctx: { ge: 0 },
      },
      {
        type: 'bool_parsing',
        loc: ['query', 'in_the_archive'],
        msg: 'Input should be a valid boolean, unable to interpret input',
        input: 'maybe',
      },
      expect.objectContaining({ type: 'enum', loc: ['query', 'ordering'], input: 'colour' }),
    ]);
  });

  it('reports a missing body field, and a field of the wrong type, and changes nothing', async () => {
    const before = await countRows(server.database.prisma);
    const response = await rest(server, 'POST', '/api/whiteboard/v1/', { json: { description: 5 } });
    expect(response.status).toBe(422);
    expect(response.body.detail).toEqual([
      { type: 'string_type', loc: ['body', 'description'], msg: 'Input should be a valid string', input: 5 },
      { type: 'missing', loc: ['body', 'name'], msg: 'Field required', input: { description: 5 } },
    ]);
    expect(await countRows(server.database.prisma)).toEqual(before);
  });

  it('reports a missing body, a body that is not an object, and one that is not JSON', async () => {
    expect((await rest(server, 'POST', '/api/whiteboard/v1/')).body).toEqual({
      detail: [{ type: 'missing', loc: ['body'], msg: 'Field required', input: null }],
    });
    expect((await rest(server, 'POST', '/api/whiteboard/v1/', { json: [1] })).body).toEqual({
      detail: [
        {
          type: 'model_attributes_type',
          loc: ['body'],
          msg: 'Input should be a valid dictionary or object to extract fields from',
          input: [1],
        },
      ],
    });
    const broken = await rest(server, 'POST', '/api/whiteboard/v1/', {
      body: '{"name":',
      headers: { 'content-type': 'application/json' },
    });
    expect(broken.status).toBe(422);
    expect(broken.body.detail[0]).toMatchObject({
      type: 'json_invalid',
      loc: ['body', expect.any(Number)],
      msg: 'JSON decode error',
    });
  });

  it("lists an enum's values", async () => {
    const response = await rest(server, 'PUT', '/api/users/control/user-organization/v1/1/', {
      json: { role: 'KING' },
    });
    expect(response.status).toBe(422);
    const [problem] = response.body.detail;
    expect(problem).toMatchObject({ type: 'enum', loc: ['body', 'role'], input: 'KING' });
    expect(problem.msg).toMatch(/^Input should be '[A-Z]+', '[A-Z]+', '[A-Z]+' or '[A-Z]+'$/);
    expect(problem.msg).toBe(`Input should be ${problem.ctx.expected}`);
  });

  it("answers a resolver's BAD_USER_INPUT as 422 at the body field it names", async () => {
    const response = await rest(server, 'POST', '/api/whiteboard/v1/', { json: { name: '   ' } });
    expect(response.status).toBe(422);
    expect(response.body.detail).toEqual([
      { type: 'value_error', loc: ['body', 'name'], msg: expect.stringMatching(/^Value error, /), input: '   ' },
    ]);
  });
});

describe('422: values PostgreSQL would refuse, checked before any SQL', () => {
  it('refuses a NUL character in a body field or a filter, naming it, and changes nothing', async () => {
    const before = await countRows(server.database.prisma);
    const body = await rest(server, 'POST', '/api/whiteboard/v1/', { json: { name: 'a\u0000b' } });
    expect([body.status, body.body]).toEqual([
      422,
      {
        detail: [
          {
            type: 'value_error',
            loc: ['body', 'name'],
            msg: 'Value error, name must not contain the NUL character (U+0000)',
            input: 'a\u0000b',
          },
        ],
      },
    ]);
    const filter = await rest(server, 'GET', '/api/whiteboard/v1/filter/?name__contains=a%00');
    expect([filter.status, filter.body.detail[0].loc]).toEqual([422, ['query', 'name__contains']]);
    const registration = await rest(server, 'POST', '/api/users/invite/v1/register/', {
      key: null,
      json: { token: 'any', first_name: 'a\u0000' },
    });
    expect([registration.status, registration.body.detail[0].loc]).toEqual([422, ['body', 'first_name']]);
    expect(await countRows(server.database.prisma)).toEqual(before);
  });

  it('refuses a number JSON reads as infinite', async () => {
    const response = await rest(server, 'POST', '/api/whiteboard/v1/object-instance/', {
      body: '{"object_id": 1, "x": 1e999}',
      headers: { 'content-type': 'application/json' },
    });
    expect([response.status, response.body]).toEqual([
      422,
      { detail: [{ type: 'finite_number', loc: ['body', 'x'], msg: 'Input should be a finite number', input: null }] },
    ]);
  });

  it('quotes at most a short prefix of an over-long value', async () => {
    const response = await rest(server, 'POST', '/api/whiteboard/v1/', { json: { name: 'x'.repeat(900_000) } });
    expect(response.status).toBe(422);
    expect(response.body.detail[0]).toMatchObject({ loc: ['body', 'name'], input: `${'x'.repeat(100)}…` });
    expect(JSON.stringify(response.body).length).toBeLessThan(400);
  });

  it('refuses a body nested deeper than 64 levels before walking it', async () => {
    const response = await rest(server, 'POST', '/api/whiteboard/v1/', {
      body: `{"name":${'['.repeat(5000)}${']'.repeat(5000)}}`,
      headers: { 'content-type': 'application/json' },
    });
    expect([response.status, response.body]).toEqual([
      422,
      {
        detail: [
          {
            type: 'json_invalid',
            loc: ['body'],
            msg: 'JSON decode error',
            input: {},
            ctx: { error: 'JSON nested deeper than 64 levels' },
          },
        ],
      },
    ]);
  });

  it('refuses a filter operator or field the route does not have, rather than answering the whole list', async () => {
    const operator = await rest(server, 'GET', '/api/whiteboard/v1/filter/?name__regex=.*');
    expect(operator.status).toBe(422);
    expect(operator.body.detail).toEqual([
      {
        type: 'value_error',
        loc: ['query', 'name__regex'],
        msg: "Value error, unknown filter 'name__regex'; name is filtered by 'name', 'name__contains', 'name__in', 'name__ne' or 'name__starts_with'",
        input: '.*',
      },
    ]);
    const field = await rest(server, 'GET', '/api/whiteboard/v1/filter/?colour__eq=red');
    expect([field.status, field.body.detail[0].loc, field.body.detail[0].msg]).toEqual([
      422,
      ['query', 'colour__eq'],
      expect.stringMatching(
        /^Value error, unknown filter 'colour__eq'; the filterable fields are 'author_id', 'created_at', .* or 'updated_at'$/,
      ),
    ]);
  });
});

describe('other refusals', () => {
  it('answers 404 "Not found" for an id that does not exist, and for one of another organization', async () => {
    for (const id of [999_999, await otherOrganizationsBoard()]) {
      for (const [method, path] of [
        ['GET', `/api/whiteboard/v1/${id}/`],
        ['PUT', `/api/whiteboard/v1/${id}/archive/`],
      ]) {
        const response = await rest(server, method, path);
        expect([method, path, response.status, response.body]).toEqual([method, path, 404, { detail: 'Not found' }]);
      }
    }
  });

  it('answers 404 for a nested path whose parent does not hold the row, and changes nothing', async () => {
    const prisma = server.database.prisma;
    const stream = await prisma.dataStream.findFirstOrThrow({
      where: { whiteboard: { organization: { name: 'Acme Robotics' } }, connections: { some: {} } },
      include: { connections: true },
    });
    const otherBoard = await prisma.whiteboard.findFirstOrThrow({
      where: {
        organizationId: (await prisma.whiteboard.findUniqueOrThrow({ where: { id: stream.whiteboardId } }))
          .organizationId,
        id: { not: stream.whiteboardId },
      },
    });
    const otherStream = await prisma.dataStream.findFirstOrThrow({ where: { whiteboardId: otherBoard.id } });
    const {
      connections: [step],
      ...row
    } = stream;
    const before = await countRows(prisma);

    const underBoard = (board: number) => `/api/whiteboard/v1/${board}/data-stream/${stream.id}/`;
    const underStream = (parent: number) =>
      `/api/whiteboard/v1/data-stream/${parent}/data-stream-connection/${step.id}/`;
    for (const [method, path, json] of [
      ['GET', underBoard(otherBoard.id)],
      ['PUT', underBoard(otherBoard.id), { name: 'moved' }],
      ['DELETE', underBoard(otherBoard.id)],
      ['GET', underStream(otherStream.id)],
      ['DELETE', underStream(otherStream.id)],
    ] as const) {
      const response = await rest(server, method, path, { json });
      expect([method, path, response.status, response.body]).toEqual([method, path, 404, { detail: 'Not found' }]);
    }
    expect(await prisma.dataStream.findUniqueOrThrow({ where: { id: stream.id } })).toEqual(row);
    expect(await countRows(prisma)).toEqual(before);

    expect((await rest(server, 'GET', underBoard(stream.whiteboardId))).body).toMatchObject({
      id: stream.id,
      whiteboard_id: stream.whiteboardId,
    });
    expect((await rest(server, 'GET', underStream(stream.id))).body).toMatchObject({
      id: step.id,
      data_stream_id: stream.id,
    });
  });

  it("answers 404 at the archive's paths for a board that is not archived, and changes nothing", async () => {
    const prisma = server.database.prisma;
    const acme = { organization: { name: 'Acme Robotics' } };
    const current = await prisma.whiteboard.findFirstOrThrow({ where: { ...acme, inTheArchive: false } });
    const archived = await prisma.whiteboard.findFirstOrThrow({ where: { ...acme, inTheArchive: true } });
    const before = await countRows(prisma);
    for (const method of ['GET', 'DELETE']) {
      const response = await rest(server, method, `/api/whiteboard/archive/v1/${current.id}/`);
      expect([method, response.status, response.body]).toEqual([method, 404, { detail: 'Not found' }]);
    }
    expect(await countRows(prisma)).toEqual(before);
    expect((await rest(server, 'GET', `/api/whiteboard/archive/v1/${archived.id}/`)).body).toMatchObject({
      id: archived.id,
    });
  });

  it('answers 409 with the reason when a change would break a rule', async () => {
    const used = await server.database.prisma.classConf.findFirstOrThrow({
      where: { objects: { some: {} }, library: { organization: { name: 'Acme Robotics' } } },
    });
    const response = await rest(server, 'DELETE', `/api/library/control/v1/class-conf/${used.id}/`);
    expect(response.status).toBe(409);
    expect(response.body).toEqual({ detail: expect.any(String) });
  });

  it('answers 404 "Not Found" for an unknown path and 405 for a known path with another method', async () => {
    const unknown = await rest(server, 'GET', '/api/nowhere/v1/');
    expect([unknown.status, unknown.body]).toEqual([404, { detail: 'Not Found' }]);
    const wrong = await rest(server, 'PATCH', '/api/whiteboard/v1/1/');
    expect([wrong.status, wrong.body]).toEqual([405, { detail: 'Method Not Allowed' }]);
    expect(wrong.headers.get('allow')).toBe('GET, PUT, DELETE');
  });

  it('redirects a path without its trailing slash, as FastAPI does', async () => {
    const response = await rest(server, 'GET', '/api/whiteboard/v1/1?x=1');
    expect(response.status).toBe(307);
    expect(response.headers.get('location')).toBe('/api/whiteboard/v1/1/?x=1');
  });
});

describe('415: a body of another type than the route reads', () => {
  const board = JSON.stringify({ name: 'Sent as text' });
  const unsupported = (expected: string) => [415, { detail: `Unsupported Media Type: send the body as ${expected}` }];

  it('refuses JSON sent as text/plain, untyped, as a form or as multipart, and creates nothing', async () => {
    const before = await countRows(server.database.prisma);
    const form = new FormData();
    form.set('name', 'Sent as multipart');
    for (const [label, options] of [
      ['text/plain', { body: board, headers: { 'content-type': 'text/plain;charset=UTF-8' } }],
      ['untyped', { body: new Blob([board]) }],
      ['form', { body: new URLSearchParams({ name: 'Sent as a form' }) }],
      ['multipart', { body: form }],
    ] as const) {
      const response = await rest(server, 'POST', '/api/whiteboard/v1/', options);
      expect([label, response.status, response.body]).toEqual([label, ...unsupported('application/json')]);
    }
    expect(await countRows(server.database.prisma)).toEqual(before);
  });

  it('refuses it on every route that reads a body, before any value is checked', async () => {
    const withBody = routes.filter((route) => route.body !== undefined);
    expect(withBody.length).toBeGreaterThan(40);
    for (const route of withBody) {
      const path = route.path.replace(/\{\w+\}/g, 'not-a-number');
      const response = await rest(server, route.method, path, {
        body: '{}',
        headers: { 'content-type': 'text/plain' },
      });
      expect([route.method, route.path, response.status]).toEqual([route.method, route.path, 415]);
    }
  });

  it('reads JSON with a charset, and a body-less call of a route whose body is optional', async () => {
    const created = await rest(server, 'POST', '/api/whiteboard/v1/', {
      body: board,
      headers: { 'content-type': 'application/json; charset=utf-8' },
    });
    expect([created.status, created.body.name]).toEqual([201, 'Sent as text']);
    const info = await rest(server, 'POST', '/api/whiteboard/v1/info/');
    expect(info.status).toBe(200);
  });

  it('takes multipart only where an upload is expected', async () => {
    const response = await rest(server, 'POST', '/api/upload/file/v1/', { json: { file: 'dot.png' } });
    expect([response.status, response.body]).toEqual(unsupported('multipart/form-data'));
  });

  it('still asks for the key first', async () => {
    const response = await rest(server, 'POST', '/api/whiteboard/v1/', {
      key: null,
      body: board,
      headers: { 'content-type': 'text/plain' },
    });
    expect([response.status, response.body]).toEqual([403, { detail: 'Not authenticated' }]);
  });
});

describe('a route whose operation does not compile', () => {
  it('stops the start of the gateway, naming the route', () => {
    const { yoga, close } = createApp({ schema, config: loadConfig({}) });
    onTestFinished(close);
    const routes: Route[] = [
      {
        group: 'whiteboard',
        name: 'Future',
        method: 'POST',
        path: '/api/whiteboard/v1/future/',
        kind: 'payload',
        operation: 'mutation Future($input: FutureInput!) { future(input: $input) { whiteboard { rowId } } }',
        body: 'input',
      },
    ];
    expect(() => restApi({ schema, yoga, config: loadConfig({}), routes })).toThrow(
      /^REST route Future \(POST \/api\/whiteboard\/v1\/future\/\)/,
    );
  });
});
