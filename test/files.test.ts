import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uploadFile } from './helpers/files.js';
import { startTestServer, type TestServer } from './helpers/server.js';

let server: TestServer;
let directory: string;
const MAX_BYTES = 4096;

beforeAll(async () => {
  // This file's uploads go to a directory of its own: the store of FILE_STORE=directory.
  directory = await mkdtemp(join(tmpdir(), 'files-test-'));
  server = await startTestServer({
    FILE_STORE: 'directory',
    FILES_DIR: directory,
    MAX_UPLOAD_BYTES: String(MAX_BYTES),
  });
});
afterAll(async () => {
  await server?.close();
  if (directory) await rm(directory, { recursive: true, force: true });
});

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 73, 72, 68, 82]);

const fileFields = 'rowId file name contentType size organizationId uploadedBy { email }';

const upload = (
  bytes: Uint8Array<ArrayBuffer> | string,
  type: string,
  name = 'picture.png',
  key: string | null = server.keys.owner,
) => uploadFile(server.url, key, bytes, type, name, fileFields);

const state = async () => ({
  rows: await server.database.prisma.file.count(),
  onDisk: (await readdir(directory)).length,
});

describe('file upload', () => {
  it('stores a file under a random name in the active organization and serves it back', async () => {
    const { data, errors } = await upload(PNG, 'image/png', '../../etc/passwd.png', server.keys.member);
    expect(errors).toBeUndefined();
    const file = data.uploadFile.file;
    expect(file.file).toMatch(/^\/files\/[0-9a-f-]{36}\.png$/);
    expect(file).toMatchObject({
      name: 'passwd.png',
      contentType: 'image/png',
      size: PNG.length,
      uploadedBy: { email: 'mia.member@acme.example' },
    });
    const acme = await server.database.prisma.organization.findFirstOrThrow({ where: { name: 'Acme Robotics' } });
    expect(file.organizationId).toBe(acme.id);

    const served = await fetch(server.url + file.file);
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe('image/png');
    expect(served.headers.get('x-content-type-options')).toBe('nosniff');
    expect(new Uint8Array(await served.arrayBuffer())).toEqual(PNG);
  });

  it("keeps the part's content type without its parameters", async () => {
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

  it('serves ranges, lengths and entity tags from the directory', async () => {
    const text = Array.from({ length: 300 }, (_, i) => `line ${String(i).padStart(4, '0')}`).join('\n');
    const path = (await upload(text, 'text/plain', 'lines.txt')).data.uploadFile.file.file;
    const whole = await fetch(server.url + path);
    expect(whole.headers.get('content-length')).toBe(String(text.length));
    expect(whole.headers.get('accept-ranges')).toBe('bytes');
    expect((await fetch(server.url + path, { headers: { 'if-none-match': whole.headers.get('etag')! } })).status).toBe(
      304,
    );
    const part = await fetch(server.url + path, { headers: { range: 'bytes=100-199' } });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 100-199/${text.length}`);
    expect(part.headers.get('content-length')).toBe('100');
    expect(await part.text()).toBe(text.slice(100, 200));
    expect(await (await fetch(server.url + path, { headers: { range: 'bytes=-9' } })).text()).toBe(text.slice(-9));
    expect(await (await fetch(server.url + path, { headers: { range: `bytes=${text.length - 5}-` } })).text()).toBe(
      text.slice(-5),
    );
    const beyond = await fetch(server.url + path, { headers: { range: `bytes=${text.length}-` } });
    expect(beyond.status).toBe(416);
    expect(beyond.headers.get('content-range')).toBe(`bytes */${text.length}`);
  });

  it('answers 404 for names the store never gave out', async () => {
    for (const path of [
      '/files/00000000-0000-4000-8000-000000000000.png',
      '/files/..%2F..%2Fpackage.json',
      '/files/demo/texture-server-light.png',
      '/files/x.html',
    ]) {
      expect((await fetch(server.url + path)).status, path).toBe(404);
    }
  });
});
