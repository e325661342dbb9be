import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pngBytes, uploadFile } from './helpers/files.js';
import { startTestServer, type TestServer } from './helpers/server.js';

// The default store: files in the database (file_chunk).
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server?.close());

const chunksOf = (path: string) =>
  server.database.prisma.fileChunk.count({ where: { name: path.replace('/files/', '') } });

async function upload(key: string, bytes: Uint8Array<ArrayBuffer>): Promise<string> {
  const { data, errors } = await uploadFile(server.url, key, bytes, 'image/png', 'board.png');
  expect(errors).toBeUndefined();
  return data.uploadFile.file.file;
}

describe('files in the database', () => {
  it("deletes a file's chunks with its row, in the same transaction: an organization's deletion takes its files' bytes", async () => {
    const acme = await server.database.prisma.organization.findFirstOrThrow({ where: { name: 'Acme Robotics' } });
    // Over one chunk (256 KiB): two rows.
    const doomed = await upload(server.keys.owner, pngBytes(300_000));
    const globex = await server.database.prisma.organization.findFirstOrThrow({ where: { name: 'Globex Logistics' } });
    const switched = await server.graphql(
      `mutation($id: Int!) { updateActiveOrganization(input: { organizationId: $id }) { __typename } }`,
      { id: globex.id },
      server.keys.member,
    );
    expect(switched.errors).toBeUndefined();
    const kept = await upload(server.keys.member, pngBytes(1_000));
    expect(await chunksOf(doomed)).toBe(2);

    const removed = await server.graphql(
      `mutation($id: Int!, $name: String!) { deleteOrganization(input: { rowId: $id, confirmName: $name }) { deletedRowId } }`,
      { id: acme.id, name: acme.name },
    );
    expect(removed.errors).toBeUndefined();
    expect(await chunksOf(doomed)).toBe(0);
    expect((await fetch(server.url + doomed)).status).toBe(404);
    expect(await chunksOf(kept)).toBe(1);
    expect((await fetch(server.url + kept)).status).toBe(200);
  });
});
