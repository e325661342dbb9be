import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendGraphQL } from './helpers/graphql.js';
import { rest } from './helpers/rest.js';
import { startTestServer, type TestServer } from './helpers/server.js';

// Idempotency-Key on mutations over HTTP (src/http/idempotency.ts): a retry answers the first answer
// again and changes nothing, on both doors and both engines.

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server?.close());

const prisma = () => server.database.prisma;
const create = `mutation($input: CreateWhiteboardInput!) { createWhiteboard(input: $input) { whiteboard { rowId name createdAt } } }`;
const boardsNamed = (name: string) => prisma().whiteboard.count({ where: { name } });
const keyRow = (key: string) => prisma().idempotencyKey.findFirst({ where: { key } });

/** A GraphQL POST with these headers: status, the replay header, the body. */
async function graphql(query: string, variables: Record<string, unknown>, headers: Record<string, string>) {
  const response = await sendGraphQL(server.url, query, { variables, key: server.keys.owner, headers });
  const replayed = response.headers.get('idempotent-replayed');
  return {
    status: response.status,
    replayed,
    retryAfter: response.headers.get('retry-after'),
    body: await response.json(),
  };
}

const keyed = (key: string) => ({ 'Idempotency-Key': key });

describe('a mutation sent again with its Idempotency-Key', () => {
  it('over /graphql answers the same body with Idempotent-Replayed: true and makes no second row', async () => {
    const [key, name] = [randomUUID(), `Keyed ${randomUUID()}`];
    const first = await graphql(create, { input: { name } }, keyed(key));
    expect(first).toMatchObject({ status: 200, replayed: null });
    expect(first.body.errors).toBeUndefined();
    const again = await graphql(create, { input: { name } }, keyed(key));
    expect(again).toEqual({ ...first, replayed: 'true' });
    expect(await boardsNamed(name)).toBe(1);
    expect(await keyRow(key)).toMatchObject({ state: 'DONE', caller: expect.stringMatching(/^key:\d+$/) });
  });

  it('on a REST POST answers the same status and body with Idempotent-Replayed: true and makes no second row', async () => {
    const [key, name] = [randomUUID(), `Keyed REST ${randomUUID()}`];
    const post = () => rest(server, 'POST', '/api/whiteboard/v1/', { json: { name }, headers: keyed(key) });
    const first = await post();
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const again = await post();
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await boardsNamed(name)).toBe(1);
  });

  it('with another request is 422 on both doors, and runs nothing', async () => {
    const key = randomUUID();
    const name = `Reused ${randomUUID()}`;
    expect((await graphql(create, { input: { name } }, keyed(key))).status).toBe(200);
    const other = await graphql(create, { input: { name: `${name} 2` } }, keyed(key));
    expect(other.status).toBe(422);
    expect(other.body.errors[0].extensions.code).toBe('IDEMPOTENCY_KEY_REUSED');
    const viaRest = await rest(server, 'POST', '/api/whiteboard/v1/', { json: { name }, headers: keyed(key) });
    expect(viaRest.status).toBe(422);
    expect(viaRest.body.detail).toMatch(/Idempotency-Key was sent with another request/);
    expect(await boardsNamed(`${name} 2`)).toBe(0);
    expect(await boardsNamed(name)).toBe(1);
  });

  it('is kept per caller: another key of the same key text runs on its own', async () => {
    const [key, name] = [randomUUID(), `Callers ${randomUUID()}`];
    await graphql(create, { input: { name } }, keyed(key));
    const response = await sendGraphQL(server.url, create, {
      variables: { input: { name } },
      key: server.keys.member,
      headers: keyed(key),
    });
    expect(response.headers.get('idempotent-replayed')).toBeNull();
    expect(await boardsNamed(name)).toBe(2);
  });
});

describe('requests with one key at the same time', () => {
  it('never both run: one makes the row, the others are 409 with Retry-After or its replay', async () => {
    const [key, name] = [randomUUID(), `Concurrent ${randomUUID()}`];
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => graphql(create, { input: { name } }, keyed(key))),
    );
    expect(await boardsNamed(name)).toBe(1);
    const ran = answers.filter((answer) => answer.status === 200 && answer.replayed === null);
    expect(ran).toHaveLength(1);
    for (const answer of answers) {
      if (answer.status === 200) expect(answer.body).toEqual(ran[0].body);
      else {
        expect(answer.status).toBe(409);
        expect(answer.body.errors[0].extensions.code).toBe('IDEMPOTENCY_KEY_IN_USE');
      }
    }
  });

  it('while the first is running (its lease holds): 409 with Retry-After on both doors', async () => {
    const [key, name] = [randomUUID(), `Running ${randomUUID()}`];
    const first = await graphql(create, { input: { name } }, keyed(key));
    // As if it were still running: no answer stored, a lease a minute long.
    await prisma().idempotencyKey.updateMany({
      where: { key },
      data: { state: 'RUNNING', result: null, leaseUntil: new Date(Date.now() + 60_000) },
    });
    const busy = await graphql(create, { input: { name } }, keyed(key));
    expect(busy.status).toBe(409);
    expect(busy.body.errors[0].extensions.code).toBe('IDEMPOTENCY_KEY_IN_USE');
    expect(Number(busy.retryAfter)).toBeGreaterThanOrEqual(59);
    expect(first.status).toBe(200);
    // The REST route runs the same request for its own key.
    const [restKey, restName] = [randomUUID(), `Running REST ${randomUUID()}`];
    const post = () =>
      rest(server, 'POST', '/api/whiteboard/v1/', { json: { name: restName }, headers: keyed(restKey) });
    expect((await post()).status).toBe(201);
    await prisma().idempotencyKey.updateMany({
      where: { key: restKey },
      data: { state: 'RUNNING', result: null, leaseUntil: new Date(Date.now() + 60_000) },
    });
    const viaRest = await post();
    expect(viaRest.status).toBe(409);
    expect(Number(viaRest.headers.get('retry-after'))).toBeGreaterThanOrEqual(59);
    expect(await boardsNamed(name)).toBe(1);
    expect(await boardsNamed(restName)).toBe(1);
  });
});

describe('a request that ended without its answer stored', () => {
  it('is taken over by its retry, which skips the change that committed and answers it: one row', async () => {
    const [key, name] = [randomUUID(), `Recovered ${randomUUID()}`];
    const first = await graphql(create, { input: { name } }, keyed(key));
    // The answer lost after the commit: the key still RUNNING, its lease run out.
    await prisma().idempotencyKey.updateMany({
      where: { key },
      data: { state: 'RUNNING', result: null, leaseUntil: new Date(Date.now() - 1000) },
    });
    const retried = await graphql(create, { input: { name } }, keyed(key));
    expect(retried.status).toBe(200);
    expect(retried.body.data.createWhiteboard.whiteboard).toEqual(first.body.data.createWhiteboard.whiteboard);
    expect(await boardsNamed(name)).toBe(1);
    expect(await keyRow(key)).toMatchObject({ state: 'DONE', attempt: 2 });
    // And kept: the next retry is a replay.
    expect((await graphql(create, { input: { name } }, keyed(key))).replayed).toBe('true');
  });

  it('with an error answered is left to a retry, which runs again (nothing was changed)', async () => {
    const key = randomUUID();
    const refused = await graphql(create, { input: { name: '  ' } }, keyed(key));
    expect(refused.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(await keyRow(key)).toMatchObject({ state: 'RUNNING', result: null });
    const again = await graphql(create, { input: { name: '  ' } }, keyed(key));
    expect(again.replayed).toBeNull();
    expect(again.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
  });

  it('with a field refused after another committed is not kept: the retry skips the change that committed', async () => {
    const [key, name] = [randomUUID(), `Partial ${randomUUID()}`];
    const both = `mutation($input: CreateWhiteboardInput!, $bad: CreateWhiteboardInput!) {
      made: createWhiteboard(input: $input) { whiteboard { rowId name } }
      refused: createWhiteboard(input: $bad) { whiteboard { rowId } }
    }`;
    const variables = { input: { name }, bad: { name: '' } };
    // The payloads are non-null: the refused field nulls the whole answer, though the first board was made.
    const first = await graphql(both, variables, keyed(key));
    expect(first.body).toMatchObject({ data: null, errors: [{ path: ['refused'] }] });
    expect(await boardsNamed(name)).toBe(1);
    const retried = await graphql(both, variables, keyed(key));
    expect(retried.replayed).toBeNull();
    expect(retried.body).toMatchObject({ data: null, errors: [{ path: ['refused'] }] });
    expect(await boardsNamed(name)).toBe(1);
  });
});

describe('the one-statement writes with a key', () => {
  const rename = `mutation($input: UpdateWhiteboardInput!) { updateWhiteboard(input: $input) { whiteboard { rowId name } } }`;
  const move = `mutation($input: MoveWhiteboardObjectInstancesInput!) {
    moveWhiteboardObjectInstances(input: $input) { whiteboardObjectInstances { rowId x } }
  }`;
  const entriesOf = async (key: string) => {
    const row = await keyRow(key);
    return prisma().userActionLog.count({ where: { requestId: row!.id } });
  };
  const loseAnswer = (key: string) =>
    prisma().idempotencyKey.updateMany({
      where: { key },
      data: { state: 'RUNNING', result: null, leaseUntil: new Date(Date.now() - 1000) },
    });

  it('a rename is replayed, and a retry after its answer was lost does not write it again', async () => {
    const board = await prisma().whiteboard.create({ data: { name: 'Before', organizationId: 1, authorId: 1 } });
    const [key, input] = [randomUUID(), { rowId: board.id, name: `Renamed ${randomUUID()}` }];
    const first = await graphql(rename, { input }, keyed(key));
    expect(first.body.data.updateWhiteboard.whiteboard.name).toBe(input.name);
    expect((await graphql(rename, { input }, keyed(key))).replayed).toBe('true');
    await loseAnswer(key);
    // Renamed by someone else since: the retry does not rename it back, it answers the row as it is.
    await prisma().whiteboard.update({ where: { id: board.id }, data: { name: 'Renamed since' } });
    const retried = await graphql(rename, { input }, keyed(key));
    expect(retried.body.data.updateWhiteboard.whiteboard).toEqual({ rowId: board.id, name: 'Renamed since' });
    expect(await entriesOf(key)).toBe(1);
  });

  it('a move is replayed, and a retry after its answer was lost does not move again', async () => {
    const object = await prisma().whiteboardObject.findFirstOrThrow({ orderBy: { id: 'asc' } });
    const [one, two] = await prisma().whiteboardObjectInstance.createManyAndReturn({
      data: [{ objectId: object.id }, { objectId: object.id }],
    });
    const key = randomUUID();
    const input = { whiteboardId: object.whiteboardId, instances: [one, two].map(({ id }) => ({ rowId: id, x: 42 })) };
    const first = await graphql(move, { input }, keyed(key));
    expect(first.body.data.moveWhiteboardObjectInstances.whiteboardObjectInstances).toEqual([
      { rowId: one.id, x: 42 },
      { rowId: two.id, x: 42 },
    ]);
    expect((await graphql(move, { input }, keyed(key))).replayed).toBe('true');
    await loseAnswer(key);
    await prisma().whiteboardObjectInstance.update({ where: { id: two.id }, data: { x: 7 } });
    const retried = await graphql(move, { input }, keyed(key));
    expect(retried.body.data.moveWhiteboardObjectInstances.whiteboardObjectInstances).toEqual([
      { rowId: one.id, x: 42 },
      { rowId: two.id, x: 7 },
    ]);
    expect(await entriesOf(key)).toBe(2);
  });

  it('a retry after its answer was lost, of a change whose row was deleted since, is NOT_FOUND, never a 500', async () => {
    const object = await prisma().whiteboardObject.findFirstOrThrow({ orderBy: { id: 'asc' } });
    const updateObject = `mutation($input: UpdateWhiteboardObjectInput!) {
      updateWhiteboardObject(input: $input) { whiteboardObject { rowId name } }
    }`;
    const newBoard = () => prisma().whiteboard.create({ data: { name: 'Doomed', organizationId: 1, authorId: 1 } });
    const dropBoard = (id: number) => prisma().whiteboard.delete({ where: { id } });
    const made = /^Whiteboard \d+ not found: the change was made, and the row was deleted since$/;
    const cases = [
      // One statement, answered by the write plan, then by the executor (a relation asked).
      { query: rename, input: (id: number) => ({ rowId: id, name: 'Renamed' }), make: newBoard, drop: dropBoard, made },
      {
        query: rename.replace('{ rowId name }', '{ rowId name organization { rowId } }'),
        input: (id: number) => ({ rowId: id, name: 'Renamed' }),
        make: newBoard,
        drop: dropBoard,
        made,
      },
      // A transaction (recordChange) whose payload reads the row: a create.
      {
        query: create,
        input: () => ({ name: `Made then deleted ${randomUUID()}` }),
        make: async () => ({ id: 0 }),
        drop: (_: number, answer: any) => dropBoard(answer.createWhiteboard.whiteboard.rowId),
        made,
      },
      // A transaction whose row is looked up before its step: the row is not found there.
      {
        query: updateObject,
        input: (id: number) => ({ rowId: id, name: 'Renamed' }),
        make: () =>
          prisma().whiteboardObject.create({
            data: { name: 'Doomed', whiteboardId: object.whiteboardId, authorId: 1 },
          }),
        drop: (id: number) => prisma().whiteboardObject.delete({ where: { id } }),
        made: /^Whiteboard object not found$/,
      },
    ];
    for (const { query, input, make, drop, made } of cases) {
      const row = await make();
      const variables = { input: input(row.id) };
      const key = randomUUID();
      const first = await graphql(query, variables, keyed(key));
      expect(first.body.errors).toBeUndefined();
      await loseAnswer(key);
      await drop(row.id, first.body.data);
      const retried = await graphql(query, variables, keyed(key));
      expect(retried.body).toMatchObject({
        data: null,
        errors: [{ extensions: { code: 'NOT_FOUND' }, message: expect.stringMatching(made) }],
      });
      // The change was not made again, and the key is left to the next retry, which answers the same.
      expect(await entriesOf(key)).toBe(1);
      expect(await keyRow(key)).toMatchObject({ state: 'RUNNING', result: null });
    }
  });

  it('with an expected version: a stale one is CONFLICT and not kept; the current one writes once and is replayed', async () => {
    const board = await prisma().whiteboard.create({ data: { name: 'Versioned', organizationId: 1, authorId: 1 } });
    const stale = await graphql(
      rename,
      { input: { rowId: board.id, name: 'Stale', expectedVersion: 0 } },
      keyed(randomUUID()),
    );
    expect(stale.body.errors[0].extensions).toMatchObject({ code: 'CONFLICT', currentVersion: 1 });
    const key = randomUUID();
    const input = { rowId: board.id, name: 'Current', expectedVersion: 1 };
    expect((await graphql(rename, { input }, keyed(key))).body.data.updateWhiteboard.whiteboard.name).toBe('Current');
    expect((await graphql(rename, { input }, keyed(key))).replayed).toBe('true');
    expect(await prisma().whiteboard.findUniqueOrThrow({ where: { id: board.id } })).toMatchObject({
      name: 'Current',
      version: 2,
    });
  });

  it('cost the statements of the write and two more: the key claimed, the answer kept', async () => {
    const board = await prisma().whiteboard.create({ data: { name: 'Counted', organizationId: 1, authorId: 1 } });
    const input = { rowId: board.id, name: `Counted ${randomUUID()}` };
    const plain = await server.countStatements(() => graphql(rename, { input }, {}));
    const withKey = await server.countStatements(() => graphql(rename, { input }, keyed(randomUUID())));
    const ofRequest = (statements: string[]) => statements.filter((sql) => !/"api_key"/.test(sql));
    expect(ofRequest(withKey.statements)).toHaveLength(ofRequest(plain.statements).length + 2);
  });
});

describe('an answer that holds a secret shown once', () => {
  it('is never kept: a retry is told the key was made and its secret cannot be shown again, and makes no second key', async () => {
    const key = randomUUID();
    const name = `Keyed key ${randomUUID()}`;
    const createKey = `mutation($name: String!) { createApiKey(input: { name: $name, permission: READ_ONLY }) { secret apiKey { rowId } } }`;
    const first = await graphql(createKey, { name }, keyed(key));
    expect(first.body.data.createApiKey.secret).toMatch(/^wbg_/);
    const row = await keyRow(key);
    expect(row).toMatchObject({ state: 'RUNNING', result: null });
    const retried = await graphql(createKey, { name }, keyed(key));
    expect(retried.replayed).toBeNull();
    expect(retried.body.errors[0]).toMatchObject({
      extensions: { code: 'CONFLICT' },
      message: expect.stringContaining('shown only once'),
    });
    expect(await prisma().apiKey.count({ where: { name } })).toBe(1);
  });
});

describe('keys past IDEMPOTENCY_TTL_HOURS', () => {
  it('are deleted by the retention run, and the same key is then a new request', async () => {
    const [key, name] = [randomUUID(), `Expired ${randomUUID()}`];
    await graphql(create, { input: { name } }, keyed(key));
    await prisma().idempotencyKey.updateMany({ where: { key }, data: { expiresAt: new Date(Date.now() - 1000) } });
    const again = await graphql(create, { input: { name } }, keyed(key));
    expect(again.replayed).toBeNull();
    expect(await boardsNamed(name)).toBe(2);
    await prisma().idempotencyKey.updateMany({ where: { key }, data: { expiresAt: new Date(Date.now() - 1000) } });
    await server.gateway.live.prune();
    expect(await keyRow(key)).toBeNull();
  });
});

describe('what the header does not apply to', () => {
  it('a key that is not 1 to 255 printable ASCII characters is 400 naming the header, on both doors', async () => {
    const name = `Bad key ${randomUUID()}`;
    for (const key of ['x'.repeat(256), 'clé']) {
      const response = await graphql(create, { input: { name } }, keyed(key));
      expect(response.status).toBe(400);
      expect(response.body.errors[0]).toMatchObject({
        message: expect.stringContaining('Idempotency-Key'),
        extensions: { code: 'BAD_REQUEST', header: 'Idempotency-Key' },
      });
    }
    const viaRest = await rest(server, 'POST', '/api/whiteboard/v1/', {
      json: { name },
      headers: keyed('x'.repeat(256)),
    });
    expect(viaRest.status).toBe(400);
    expect(viaRest.body.detail).toMatch(/Idempotency-Key/);
    expect(await boardsNamed(name)).toBe(0);
  });

  it('queries ignore it, a bad one too, and keep nothing', async () => {
    const key = randomUUID();
    for (const header of [key, 'x'.repeat(300)]) {
      const read = await graphql('{ whiteboards(first: 1) { totalCount } }', {}, keyed(header));
      expect(read.status).toBe(200);
      expect(read.body.errors).toBeUndefined();
      expect(read.replayed).toBeNull();
    }
    expect(await keyRow(key)).toBeNull();
  });

  it('REST PUT ignores it: only POST routes honour it', async () => {
    const key = randomUUID();
    const board = await prisma().whiteboard.findFirstOrThrow({ orderBy: { id: 'asc' } });
    const put = await rest(server, 'PUT', `/api/whiteboard/v1/${board.id}/`, {
      json: { name: board.name },
      headers: keyed(key),
    });
    expect(put.status).toBe(200);
    expect(await keyRow(key)).toBeNull();
  });
});

describe('the OpenAPI document', () => {
  it('names Idempotency-Key, Idempotent-Replayed and the 400, 409 and 422 answers on the POST routes that change, only there', async () => {
    const document = await (await fetch(`${server.url}/api/openapi.json`)).json();
    const create = document.paths['/api/whiteboard/v1/'].post;
    expect(create.parameters).toContainEqual(expect.objectContaining({ name: 'Idempotency-Key', in: 'header' }));
    expect(create.responses['201'].headers['Idempotent-Replayed']).toBeDefined();
    expect(create.responses['400'].description).toMatch(/Idempotency-Key/);
    expect(create.responses['409'].headers['Retry-After']).toBeDefined();
    expect(create.responses['422'].description).toMatch(/Idempotency-Key/);
    const update = document.paths['/api/whiteboard/v1/{whiteboard_id}/'].put;
    expect(update.parameters.map((parameter: { name: string }) => parameter.name)).not.toContain('Idempotency-Key');
  });
});
