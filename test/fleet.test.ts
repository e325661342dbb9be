import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeEvent, LIVE_CHANNEL, type LiveEvent } from '../src/live/events.js';
import { subscribeSse, subscribeWs, until } from './helpers/live.js';
import { rest } from './helpers/rest.js';
import { startInstance, startTestServer, type TestServer } from './helpers/server.js';

// Instances share changes through PostgreSQL's NOTIFY, which an in-process PGlite cannot show across
// connections: this file always runs on a PostgreSQL server (the CI machine has this one).
process.env.TEST_DATABASE_URL ||= 'postgresql://postgres@127.0.0.1:5432/test';

let a: TestServer;
let b: Awaited<ReturnType<typeof startInstance>>;
let board: { rowId: number; organizationId: number };

const boardEvents = `subscription($id: Int!) { whiteboardEvents(whiteboardId: $id) {
  __typename ... on LiveEvent { kind type rowId } ... on NodeChangedEvent { node { ... on Whiteboard { name } } }
} }`;
const rename = `mutation($rowId: Int!, $name: String!) { updateWhiteboard(input: { rowId: $rowId, name: $name }) { whiteboard { name } } }`;

beforeAll(async () => {
  a = await startTestServer();
  // A second instance on the same database, with its own LISTEN connection.
  b = await startInstance();
  const boards = await a.graphql('{ whiteboards(first: 1, orderBy: [{ field: id, direction: ASC }]) { edges { node { rowId organizationId } } } }');
  board = boards.data!.whiteboards.edges[0].node;
});
afterAll(async () => {
  await b?.close();
  await a?.close();
});

/** Uploads through `server` (GraphQL multipart) and answers the file's URL path. */
async function upload(server: TestServer, bytes: Uint8Array<ArrayBuffer> | string, type: string, name: string): Promise<string> {
  const form = new FormData();
  form.set('operations', JSON.stringify({ query: 'mutation($f: Upload!) { uploadFile(input: { file: $f }) { file { file } } }', variables: { f: null } }));
  form.set('map', JSON.stringify({ 0: ['variables.f'] }));
  form.set('0', new Blob([bytes], { type }), name);
  const response = await fetch(`${server.url}/graphql`, { method: 'POST', body: form, headers: { 'x-api-key': server.keys.owner } });
  const { data, errors } = await response.json();
  expect(errors).toBeUndefined();
  return data.uploadFile.file.file;
}

describe('two instances on one PostgreSQL database', () => {
  it('runs on PostgreSQL', () => {
    expect(a.database.engine.kind).toBe('postgres');
  });

  it('tells a subscriber on B, within a second, of a mutation and of a REST write sent to A', async () => {
    const events = await subscribeSse(b.url, a.keys.viewer, boardEvents, { id: board.rowId });
    let sentAt = Date.now();
    await a.graphql(rename, { rowId: board.rowId, name: 'Fleet via GraphQL' });
    expect((await events.next(1_000)).data.whiteboardEvents).toMatchObject({ kind: 'UPDATED', node: { name: 'Fleet via GraphQL' } });
    expect(Date.now() - sentAt).toBeLessThan(1_000);
    sentAt = Date.now();
    expect((await rest(a, 'PUT', `/api/whiteboard/v1/${board.rowId}/`, { json: { name: 'Fleet via REST' } })).status).toBe(200);
    expect((await events.next(1_000)).data.whiteboardEvents).toMatchObject({ kind: 'UPDATED', node: { name: 'Fleet via REST' } });
    expect(Date.now() - sentAt).toBeLessThan(1_000);
    events.close();
    await until(() => b.gateway.live.size === 0);
  });

  it('sends nothing for a change that rolls back after announcing itself, nor for a refused mutation', async () => {
    const events = await subscribeSse(b.url, a.keys.viewer, boardEvents, { id: board.rowId });
    const event = { kind: 'UPDATED', type: 'Whiteboard', rowId: board.rowId, organizationId: board.organizationId, whiteboardId: board.rowId };
    await expect(
      a.database.prisma.$transaction(async (tx) => {
        await tx.$executeRaw`SELECT pg_notify(${LIVE_CHANNEL}, ${encodeEvent(event as LiveEvent)})`;
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    const refused = await a.graphql(`mutation($id: Int!) { createDataStream(input: { whiteboardId: $id, name: "" }) { dataStream { rowId } } }`, { id: board.rowId });
    expect(refused.errors).toBeDefined();
    await expect(events.next(500)).rejects.toThrow('no event');
    events.close();
    await until(() => b.gateway.live.size === 0);
  });

  it('serves through B a file uploaded through A: type, length, entity tag, ranges; SVG as a download', async () => {
    // Larger than one stored chunk (256 KiB), so a range crosses chunks.
    const png = new Uint8Array(300_000);
    png.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    for (let i = 8; i < png.length; i++) png[i] = i % 251;
    const path = await upload(a, png, 'image/png', 'big.png');
    const whole = await fetch(b.url + path);
    expect(whole.status).toBe(200);
    expect(whole.headers.get('content-type')).toBe('image/png');
    expect(whole.headers.get('content-length')).toBe(String(png.length));
    expect(new Uint8Array(await whole.arrayBuffer())).toEqual(png);
    const etag = whole.headers.get('etag')!;
    expect(etag).toBeTruthy();
    expect((await fetch(b.url + path, { headers: { 'if-none-match': etag } })).status).toBe(304);

    const part = await fetch(b.url + path, { headers: { range: 'bytes=262000-262199' } });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 262000-262199/${png.length}`);
    expect(part.headers.get('content-length')).toBe('200');
    expect(new Uint8Array(await part.arrayBuffer())).toEqual(png.subarray(262_000, 262_200));
    const tail = await fetch(b.url + path, { headers: { range: 'bytes=-10' } });
    expect(new Uint8Array(await tail.arrayBuffer())).toEqual(png.subarray(png.length - 10));
    expect((await fetch(b.url + path, { headers: { range: `bytes=${png.length}-` } })).status).toBe(416);

    const svg = await fetch(b.url + (await upload(a, '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>', 'image/svg+xml', 'x.svg')));
    expect(svg.headers.get('content-disposition')).toMatch(/^attachment/);
    expect(svg.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it("ends, on B, the stream of a key revoked through A", async () => {
    const created = (await a.graphql(`mutation { createApiKey(input: { name: "fleet", permission: READ_ONLY }) { secret apiKey { id } } }`)).data!.createApiKey;
    const events = subscribeWs(b.url, created.secret, boardEvents, { id: board.rowId });
    await until(() => b.gateway.live.size === 1);
    await a.graphql(`mutation($id: ID!) { revokeApiKey(input: { id: $id }) { apiKey { revokedAt } } }`, { id: created.apiKey.id });
    expect((await events.next(1_000)).errors?.[0]).toMatchObject({ extensions: { code: 'UNAUTHENTICATED' } });
    await events.ended;
  });
});
