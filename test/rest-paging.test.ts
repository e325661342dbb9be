import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rest } from './helpers/rest.js';
import { startTestServer, type TestServer } from './helpers/server.js';

// Offset pages: the `offset` argument of the root connections, and the REST lists' limit/offset,
// filter parameters, ordering and Info over it.

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server?.close());

const slideIds = async (args: string) =>
  (await server.graphql(`{ slides(${args}) { edges { node { rowId } } } }`)).data!.slides.edges.map(
    (edge: { node: { rowId: number } }) => edge.node.rowId,
  );

describe('the offset argument of a root connection', () => {
  it('skips rows before the page, after `after` when given', async () => {
    const all = await slideIds('first: 100');
    expect(all.length).toBeGreaterThan(4);
    expect(await slideIds('first: 2, offset: 3')).toEqual(all.slice(3, 5));
    const { data } = await server.graphql('{ slides(first: 1) { pageInfo { endCursor } } }');
    expect(await slideIds(`first: 2, offset: 1, after: "${data!.slides.pageInfo.endCursor}"`)).toEqual(all.slice(2, 4));
  });

  it('refuses a negative offset and one with last/before, naming the argument', async () => {
    for (const args of ['first: 2, offset: -1', 'last: 2, offset: 1']) {
      const response = await server.graphql(`{ slides(${args}) { edges { cursor } } }`);
      expect(response.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'offset' });
    }
  });
});

describe('REST lists', () => {
  it('take limit and offset, send the total in X-Total-Count, and default to pages of 100', async () => {
    const whole = await rest(server, 'GET', '/api/whiteboard/v1/data-stream-slide/');
    const total = Number(whole.headers.get('x-total-count'));
    expect(whole.body).toHaveLength(Math.min(total, 100));
    const pages = [];
    for (let offset = 0; offset < total; offset += 4) {
      const page = await rest(server, 'GET', `/api/whiteboard/v1/data-stream-slide/?limit=4&offset=${offset}`);
      expect(page.headers.get('x-total-count')).toBe(String(total));
      pages.push(...page.body);
    }
    expect(pages).toEqual(whole.body);
  });

  it('filter by every operator of a column and sort by legacy names, and Info counts the same rows', async () => {
    const { data } = await server.graphql('{ dataStreams(first: 1) { edges { node { rowId whiteboardId } } } }');
    const stream = data!.dataStreams.edges[0].node;
    const filtered = await rest(
      server,
      'GET',
      `/api/whiteboard/v1/data-stream-slide/filter/?data_stream_id=${stream.rowId}&name__contains=E&ordering=-order`,
    );
    expect(filtered.status).toBe(200);
    expect(filtered.body.length).toBeGreaterThan(0);
    for (const slide of filtered.body)
      expect([slide.data_stream_id, slide.name.toLowerCase()]).toEqual([stream.rowId, expect.stringContaining('e')]);
    expect(filtered.body.map((slide: { order: number }) => slide.order)).toEqual(
      filtered.body.map((slide: { order: number }) => slide.order).sort((a: number, b: number) => b - a),
    );

    const info = await rest(
      server,
      'POST',
      `/api/whiteboard/v1/data-stream-slide/info/?data_stream_id=${stream.rowId}&name__contains=E`,
    );
    expect(info.status).toBe(200);
    expect(info.body.total_count).toBe(Number(filtered.headers.get('x-total-count')));
    expect(info.body.fields).toContainEqual({ name: 'data_stream_id', type: 'integer' });

    const boards = await rest(
      server,
      'GET',
      `/api/whiteboard/v1/data-stream/filter/?whiteboard_id__in=${stream.whiteboardId},999999`,
    );
    expect(boards.body.map((row: { whiteboard_id: number }) => row.whiteboard_id)).toEqual(
      boards.body.map(() => stream.whiteboardId),
    );
  });

  it("give an enum column's choices in Info", async () => {
    const info = await rest(server, 'POST', '/api/users/control/user-organization/v1/info/');
    const role = info.body.fields.find((field: { name: string }) => field.name === 'role');
    expect(role.type).toBe('string');
    expect(role.choices.map((choice: { value: string }) => choice.value).sort()).toEqual([
      'ADMIN',
      'MEMBER',
      'OWNER',
      'VIEWER',
    ]);
  });
});
