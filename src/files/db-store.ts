import { prisma } from '../db/index.js';
import { contentTypeOfName, newStoredName, type FileStore } from './store.js';

/** Bytes per row: every chunk but a file's last holds exactly this many, so a range maps to rows by arithmetic. */
const CHUNK_BYTES = 256 * 1024;

/** Uploaded files in the database (table file_chunk), so every instance of a fleet serves every file. */
export class DatabaseFileStore implements FileStore {
  constructor(readonly maxBytes: number) {}

  async save(bytes: Uint8Array, contentType: string): Promise<string> {
    const name = newStoredName(contentType);
    const chunks = Array.from({ length: Math.ceil(bytes.length / CHUNK_BYTES) }, (_, index) => ({
      name,
      index,
      data: new Uint8Array(
        bytes.buffer,
        bytes.byteOffset + index * CHUNK_BYTES,
        Math.min(CHUNK_BYTES, bytes.length - index * CHUNK_BYTES),
      ) as Uint8Array<ArrayBuffer>,
    }));
    // One row per statement keeps each statement small; the transaction keeps a file whole or absent.
    await prisma().$transaction(async (tx) => {
      for (const chunk of chunks) await tx.fileChunk.create({ data: chunk, select: { index: true } });
    });
    return name;
  }

  async size(name: string): Promise<number | null> {
    if (!contentTypeOfName(name)) return null;
    const [row] = await prisma().$queryRaw<{ chunks: number; size: number }[]>`
      SELECT count(*)::int AS chunks, coalesce(sum(octet_length(data)), 0)::int AS size FROM file_chunk WHERE name = ${name}`;
    return row.chunks > 0 ? row.size : null;
  }

  // One chunk in memory at a time, whatever the file's size.
  async *read(name: string, start: number, end: number): AsyncIterable<Uint8Array> {
    for (let index = Math.floor(start / CHUNK_BYTES); index <= Math.floor(end / CHUNK_BYTES); index++) {
      const chunk = await prisma().fileChunk.findUnique({
        where: { name_index: { name, index } },
        select: { data: true },
      });
      if (!chunk) return;
      const offset = index * CHUNK_BYTES;
      yield chunk.data.subarray(Math.max(0, start - offset), end - offset + 1);
    }
  }

  async remove(name: string): Promise<void> {
    await prisma().fileChunk.deleteMany({ where: { name } });
  }
}
