import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useFileStore } from '../src/files/store.js';
import { DirectoryFileStore } from '../src/files/directory-store.js';
import { startTestServer, type TestServer } from './helpers/server.js';

let server: TestServer;
let directory: string;
const MAX_BYTES = 4096;

beforeAll(async () => {
  server = await startTestServer();
  // The app made a store from the default configuration; this file's uploads go to a directory of its own.
  directory = await mkdtemp(join(tmpdir(), 'files-test-'));
  useFileStore(new DirectoryFileStore(directory, MAX_BYTES));
});
afterAll(async () => {
  await server?.close();
  if (directory) await rm(directory, { recursive: true, force: true });
});

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 73, 72, 68, 82]);

const uploadMutation = `mutation($input: UploadFileInput!) { uploadFile(input: $input) { file { rowId file name contentType size organizationId uploadedBy { email } } } }`;

/** Sends the mutation as a GraphQL multipart request, the file in part "0". */
async function upload(bytes: Uint8Array<ArrayBuffer> | string, type: string, name = 'picture.png', key: string | null = server.keys.owner) {
  const form = new FormData();
  form.set('operations', JSON.stringify({ query: uploadMutation, variables: { input: { file: null } } }));
  form.set('map', JSON.stringify({ 0: ['variables.input.file'] }));
  form.set('0', new Blob([bytes], { type }), name);
  const response = await fetch(`${server.url}/graphql`, { method: 'POST', body: form, headers: key ? { 'x-api-key': key } : {} });
  return { status: response.status, ...(await response.json()) } as { status: number; data?: any; errors?: any[] };
}

const state = async () => ({ rows: await server.database.prisma.file.count(), onDisk: (await readdir(directory)).length });

describe('file upload', () => {
  it('stores a file under a random name in the active organization and serves it back', async () => {
    const { data, errors } = await upload(PNG, 'image/png', '../../etc/passwd.png', server.keys.member);
    expect(errors).toBeUndefined();
    const file = data.uploadFile.file;
    expect(file.file).toMatch(/^\/files\/[0-9a-f-]{36}\.png$/);
    expect(file).toMatchObject({ name: 'passwd.png', contentType: 'image/png', size: PNG.length, uploadedBy: { email: 'mia.member@acme.example' } });
    const acme = await server.database.prisma.organization.findFirstOrThrow({ where: { name: 'Acme Robotics' } });
    expect(file.organizationId).toBe(acme.id);

    const served = await fetch(server.url + file.file);
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe('image/png');
    expect(served.headers.get('x-content-type-options')).toBe('nosniff');
    expect(new Uint8Array(await served.arrayBuffer())).toEqual(PNG);
  });

  it('keeps the part\'s content type without its parameters', async () => {
    const { data, errors } = await upload('plain words', 'text/plain; charset=utf-8', 'notes.txt');
    expect(errors).toBeUndefined();
    expect(data.uploadFile.file.contentType).toBe('text/plain');
    const served = await fetch(server.url + data.uploadFile.file.file);
    expect(await served.text()).toBe('plain words');
  });

  it('refuses a type outside the allow-list, a file over the limit, a mislabelled or empty file, and changes nothing', async () => {
    const before = await state();
    for (const [bytes, type] of [
      ['<html><script>alert(1)</script></html>', 'text/html'],
      [new Uint8Array(MAX_BYTES + 1), 'text/plain'],
      ['not a png', 'image/png'],
      ['{"broken": ', 'application/json'],
      ['', 'text/plain'],
    ] as const) {
      const { errors } = await upload(bytes, type);
      expect(errors?.[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'input.file' });
    }
    expect(await state()).toEqual(before);
  });

  it('refuses a read-only key and a missing key', async () => {
    const before = await state();
    expect((await upload(PNG, 'image/png', 'x.png', server.keys.viewer)).errors?.[0].extensions.code).toBe('FORBIDDEN');
    expect((await upload(PNG, 'image/png', 'x.png', null)).errors?.[0].extensions.code).toBe('UNAUTHENTICATED');
    expect(await state()).toEqual(before);
  });

  it('answers 404 for names the store never gave out', async () => {
    for (const path of ['/files/00000000-0000-4000-8000-000000000000.png', '/files/..%2F..%2Fpackage.json', '/files/demo/texture-server-light.png', '/files/x.html']) {
      expect((await fetch(server.url + path)).status, path).toBe(404);
    }
  });
});
