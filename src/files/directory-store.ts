import { createReadStream } from 'node:fs';
import { mkdir, stat, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { contentTypeOfName, newStoredName, type FileStore } from './store.js';

/** Uploaded files in one flat directory (FILE_STORE=directory): only instances sharing the directory serve them. */
export class DirectoryFileStore implements FileStore {
  constructor(
    readonly directory: string,
    readonly maxBytes: number,
  ) {}

  async save(bytes: Uint8Array, contentType: string): Promise<string> {
    const name = newStoredName(contentType);
    await mkdir(this.directory, { recursive: true });
    await writeFile(join(this.directory, name), bytes, { flag: 'wx' });
    return name;
  }

  async size(name: string): Promise<number | null> {
    if (!contentTypeOfName(name)) return null;
    try {
      return (await stat(join(this.directory, name))).size;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  }

  read(name: string, start: number, end: number): AsyncIterable<Uint8Array> {
    return createReadStream(join(this.directory, name), { start, end });
  }

  async remove(name: string): Promise<void> {
    if (contentTypeOfName(name)) await unlink(join(this.directory, name)).catch(() => undefined);
  }
}
