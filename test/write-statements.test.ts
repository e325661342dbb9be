import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demo } from '../src/db/seed/index.js';
import type { LiveEvent } from '../src/live/events.js';
import type { LiveHub } from '../src/live/hub.js';
import { expectNothingChanged, failure, keyFor } from './helpers/changes.js';
import { heardEvents } from './helpers/live.js';
import { rest } from './helpers/rest.js';
import { ofTheRequest, startTestServer, type TestServer } from './helpers/server.js';
import type { GraphQLResponse } from './helpers/graphql.js';

// What a one-row write costs in statements (its transaction's BEGIN and COMMIT counted), whatever the
// row, its organization or the caller; and that it still logs, notifies and refuses as it did.

let server: TestServer;
let events: LiveEvent[];
let hub: LiveHub;
/** A board of each demo organization, and one of an organization with many rows of its own. */
const boards: Record<'acme' | 'globex' | 'large', number> = { acme: 0, globex: 0, large: 0 };
let slide: { id: number; whiteboardId: number };

beforeAll(async () => {
  server = await startTestServer();
  const prisma = server.database.prisma;
  ({ hub, events } = await heardEvents(() => server.database.engine));
  const byName = async (name: string) => (await prisma.whiteboard.findFirstOrThrow({ where: { name } })).id;
  boards.acme = await byName(demo.whiteboards.platform.name);
  boards.globex = await byName(demo.whiteboards.network.name);
  const owner = await prisma.user.findUniqueOrThrow({ where: { email: demo.users.owner.email } });
  const large = await prisma.organization.create({
    data: { name: 'Many Rows Ltd', members: { create: { userId: owner.id, role: 'OWNER' } } },
  });
  const created = await prisma.whiteboard.createManyAndReturn({
    data: Array.from({ length: 40 }, (_, i) => ({ name: `Board ${i}`, authorId: owner.id, organizationId: large.id })),
  });
  // With a preview, like the demo boards: a REST answer reads the preview's file, and only when there is one.
  const preview = await prisma.file.create({
    data: { file: 'preview.png', name: 'preview.png', contentType: 'image/png', size: 1, organizationId: large.id },
  });
  boards.large = created[39].id;
  await prisma.whiteboard.update({ where: { id: boards.large }, data: { miniDrawingId: preview.id } });
  const stream = await prisma.dataStream.create({
    data: { name: 'flow', whiteboardId: boards.acme, authorId: owner.id },
  });
  const { id } = await prisma.slide.create({
    data: { name: 'Slide 1', order: 1, dataStreamId: stream.id, authorId: owner.id },
  });
  slide = { id, whiteboardId: boards.acme };
});
afterAll(() => {
  hub?.stop();
  return server?.close();
});

const rename = `mutation($input: UpdateWhiteboardInput!) { updateWhiteboard(input: $input) { whiteboard { rowId name updatedAt } } }`;
const archive = `mutation($input: WhiteboardArchiveInput!) { archiveWhiteboard(input: $input) { whiteboard { rowId inTheArchive } } }`;
const unarchive = `mutation($input: WhiteboardArchiveInput!) { unarchiveWhiteboard(input: $input) { whiteboard { rowId inTheArchive } } }`;
const renameSlide = `mutation($input: UpdateSlideInput!) { updateSlide(input: $input) { slide { rowId name } } }`;

type Board = keyof typeof boards;
/** The owner of each board's organization (the demo owner owns the large one too). */
const ownerOf = (board: Board) => (board === 'globex' ? server.keys.globexOwner : server.keys.owner);

interface Write {
  name: string;
  /** The write on `board` as its organization's owner; whether it succeeded. */
  run(board: Board, n: number): Promise<boolean>;
  /** What subscribers are told. */
  kind: LiveEvent['kind'];
  /** Its statements: the write alone when the answer asks for the row's columns; else also the reads of its relations. */
  statements: number;
}

const graphqlWrite =
  (query: string, input: (rowId: number, n: number) => Record<string, unknown>) => async (board: Board, n: number) => {
    const response = await server.graphql(query, { input: input(boards[board], n) }, ownerOf(board));
    expect(response.errors).toBeUndefined();
    return response.data !== undefined;
  };

const restWrite =
  (method: string, path: (rowId: number) => string, json?: (n: number) => unknown) =>
  async (board: Board, n: number) => {
    const response = await rest(server, method, path(boards[board]), { key: ownerOf(board), json: json?.(n) });
    expect(response.status).toBe(200);
    return true;
  };

const writes: Write[] = [
  {
    name: 'updateWhiteboard (rename)',
    kind: 'UPDATED',
    statements: 1,
    run: graphqlWrite(rename, (rowId, n) => ({ rowId, name: `Renamed ${n}` })),
  },
  { name: 'archiveWhiteboard', kind: 'ARCHIVED', statements: 1, run: graphqlWrite(archive, (rowId) => ({ rowId })) },
  {
    name: 'unarchiveWhiteboard',
    kind: 'UNARCHIVED',
    statements: 1,
    run: graphqlWrite(unarchive, (rowId) => ({ rowId })),
  },
  {
    name: 'PUT /api/whiteboard/v1/{id}/',
    kind: 'UPDATED',
    // The write, then its legacy answer (with the author, the organization and the preview file) read back planned.
    statements: 2,
    run: restWrite(
      'PUT',
      (id) => `/api/whiteboard/v1/${id}/`,
      (n) => ({ name: `Put ${n}` }),
    ),
  },
  {
    name: 'PUT /api/whiteboard/v1/{id}/archive/',
    kind: 'ARCHIVED',
    statements: 1,
    run: restWrite('PUT', (id) => `/api/whiteboard/v1/${id}/archive/`),
  },
  {
    name: 'PUT /api/whiteboard/archive/v1/{id}/unarchive/',
    kind: 'UNARCHIVED',
    statements: 1,
    run: restWrite('PUT', (id) => `/api/whiteboard/archive/v1/${id}/unarchive/`),
  },
];

/** The request's statements, and the action log rows and events the write added. */
async function measured(write: Write, board: Board, n: number) {
  const prisma = server.database.prisma;
  const lastLog = (await prisma.userActionLog.findFirst({ orderBy: { id: 'desc' } }))?.id ?? 0;
  events.length = 0;
  const { result, statements } = await server.countStatements(() => write.run(board, n));
  expect(result).toBe(true);
  // A NOTIFY reaches the listener shortly after the commit.
  await expect.poll(() => events.length).toBeGreaterThan(0);
  const logged = await prisma.userActionLog.findMany({ where: { id: { gt: lastLog } } });
  return { statements: ofTheRequest(statements), logged, events: [...events] };
}

describe('a one-row write', () => {
  // The first request of a key also looks the key up; later ones find it cached.
  beforeAll(async () => {
    for (const key of [server.keys.owner, server.keys.globexOwner]) await server.graphql('{ me { rowId } }', {}, key);
  });

  for (const write of writes) {
    it(`${write.name}: ${write.statements} statement(s) for every board, logged and announced`, async () => {
      const counts: number[] = [];
      for (const [n, board] of (['acme', 'globex', 'large', 'acme'] as const).entries()) {
        const { statements, logged, events: told } = await measured(write, board, n);
        counts.push(statements.length);
        const organizationId = (
          await server.database.prisma.whiteboard.findUniqueOrThrow({ where: { id: boards[board] } })
        ).organizationId;
        expect(logged).toMatchObject([
          { method: 'UPDATE', entityType: 'Whiteboard', entityId: boards[board], organizationId },
        ]);
        expect(told).toMatchObject([
          { kind: write.kind, type: 'Whiteboard', rowId: boards[board], organizationId, whiteboardId: boards[board] },
        ]);
        // The event is the entry: its place in the log is the entry's.
        expect(told[0].position.id).toBe(logged[0].id);
      }
      expect(counts).toEqual(counts.map(() => write.statements));
      expect(write.statements).toBeLessThanOrEqual(4);
    });
  }

  it('writes a row below a board (a slide) in the same statements, telling its board', async () => {
    const counts: number[] = [];
    for (const n of [1, 2]) {
      events.length = 0;
      const { result, statements } = await server.countStatements(() =>
        server.graphql(renameSlide, { input: { rowId: slide.id, name: `Slide ${n}` } }),
      );
      expect(result.data!.updateSlide.slide).toEqual({ rowId: slide.id, name: `Slide ${n}` });
      counts.push(ofTheRequest(statements).length);
      await expect.poll(() => events.length).toBe(1);
      expect(events[0]).toMatchObject({
        kind: 'UPDATED',
        type: 'Slide',
        rowId: slide.id,
        organizationId: 1,
        whiteboardId: slide.whiteboardId,
      });
    }
    expect(counts).toEqual([1, 1]);
  });

  it('checks a referenced row (a preview file) in the same statement', async () => {
    const prisma = server.database.prisma;
    const own = await prisma.file.findFirstOrThrow({ where: { organizationId: 1 } });
    const { result, statements } = await server.countStatements(() =>
      server.graphql(rename, { input: { rowId: boards.acme, name: 'With preview', miniDrawingId: own.id } }),
    );
    expect(result.errors).toBeUndefined();
    expect(ofTheRequest(statements)).toHaveLength(1);
    expect((await prisma.whiteboard.findUniqueOrThrow({ where: { id: boards.acme } })).miniDrawingId).toBe(own.id);
  });

  it('moves updatedAt to now, never createdAt', async () => {
    const prisma = server.database.prisma;
    const before = await prisma.whiteboard.findUniqueOrThrow({ where: { id: boards.acme } });
    const start = Date.now();
    const response = await server.graphql(rename, { input: { rowId: boards.acme, name: 'Timed' } });
    const after = await prisma.whiteboard.findUniqueOrThrow({ where: { id: boards.acme } });
    expect(after.createdAt).toEqual(before.createdAt);
    expect(after.updatedAt.getTime()).toBeGreaterThanOrEqual(start - 5);
    expect(after.updatedAt.getTime()).toBeLessThanOrEqual(Date.now() + 5);
    expect(response.data!.updateWhiteboard.whiteboard.updatedAt).toBe(after.updatedAt.toISOString());
  });
});

describe('a refused one-row write', () => {
  const board = () => server.database.prisma.whiteboard.findUniqueOrThrow({ where: { id: boards.acme } });

  async function refused(work: () => Promise<GraphQLResponse>) {
    // The hub here reads every 5 ms: the events of the writes before are read by then, and this one's would be.
    await new Promise((resolve) => setTimeout(resolve, 100));
    events.length = 0;
    const response = await expectNothingChanged(server, work, board);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(events).toEqual([]);
    return response;
  }

  for (const [name, query] of [
    ['updateWhiteboard', rename],
    ['archiveWhiteboard', archive],
    ['unarchiveWhiteboard', unarchive],
  ] as const) {
    const input = () => ({ rowId: boards.acme, ...(name === 'updateWhiteboard' ? { name: 'Intrusion' } : {}) });

    it(`${name}: a board of another organization is not found`, async () => {
      const response = await refused(() => server.graphql(query, { input: input() }, server.keys.globexOwner));
      expect(failure(response)).toEqual({ code: 'NOT_FOUND' });
      expect(response.errors![0].message).toBe('Whiteboard not found');
    });

    it(`${name}: a viewer is refused by role, and a read-only key by its permission`, async () => {
      const viewer = await keyFor(server, demo.users.viewer.email, 'READ_WRITE');
      const byRole = await refused(() => server.graphql(query, { input: input() }, viewer));
      expect(failure(byRole)).toEqual({ code: 'FORBIDDEN' });
      expect(byRole.errors![0].message).toMatch(/^The VIEWER role may not /);
      const byKey = await refused(() => server.graphql(query, { input: input() }, server.keys.viewer));
      expect(failure(byKey)).toEqual({ code: 'FORBIDDEN' });
      expect(byKey.errors![0].message).toBe('This API key is read-only');
    });

    if (name === 'updateWhiteboard')
      it('updateWhiteboard: a preview file of another organization is refused, naming the field', async () => {
        const foreign = await server.database.prisma.file.findFirstOrThrow({ where: { organizationId: 2 } });
        const response = await refused(() =>
          server.graphql(rename, { input: { rowId: boards.acme, name: 'Intrusion', miniDrawingId: foreign.id } }),
        );
        expect(failure(response)).toEqual({ code: 'BAD_USER_INPUT', field: 'input.miniDrawingId' });
        expect(response.errors![0].message).toBe(`miniDrawingId ${foreign.id} is not a File of this organization`);
      });

    it(`${name}: a board that does not exist is not found`, async () => {
      const response = await refused(() =>
        server.graphql(query, { input: { ...input(), rowId: 2_000_000_000 } }, server.keys.owner),
      );
      expect(failure(response)).toEqual({ code: 'NOT_FOUND' });
    });
  }
});
