import { randomUUID } from 'node:crypto';
import { mkdir, readFile, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** Content types accepted for upload, with the extension a stored file of that type gets. */
export const allowedContentTypes: Readonly<Record<string, string>> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/gif': 'gif',
  'image/webp': 'webp',
  'image/svg+xml': 'svg',
  'application/pdf': 'pdf',
  'application/json': 'json',
  'text/plain': 'txt',
};

const contentTypeOfExtension = Object.fromEntries(Object.entries(allowedContentTypes).map(([type, extension]) => [extension, type]));

const startsWith = (bytes: Uint8Array, signature: string, offset = 0) =>
  [...signature].every((char, index) => bytes[offset + index] === char.charCodeAt(0));

/** Whether the bytes look like the declared type, so a file is never served under a type it is not. */
export function contentMatches(bytes: Uint8Array, contentType: string): boolean {
  switch (baseContentType(contentType)) {
    case 'image/png':
      return startsWith(bytes, '\x89PNG\r\n\x1a\n');
    case 'image/jpeg':
      return startsWith(bytes, '\xff\xd8\xff');
    case 'image/gif':
      return startsWith(bytes, 'GIF8');
    case 'image/webp':
      return startsWith(bytes, 'RIFF') && startsWith(bytes, 'WEBP', 8);
    case 'application/pdf':
      return startsWith(bytes, '%PDF-');
    case 'image/svg+xml':
      return /<svg[\s>]/.test(new TextDecoder().decode(bytes.subarray(0, 4096)));
    case 'application/json':
      try {
        JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
        return true;
      } catch {
        return false;
      }
    default:
      return true;
  }
}

/** A stored name: a random UUID and the extension of its content type, nothing a caller chose. */
const STORED_NAME = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.([a-z]+)$/;

/** "text/plain; charset=utf-8" -> "text/plain". */
export function baseContentType(contentType: string): string {
  return contentType.split(';')[0].trim().toLowerCase();
}

/**
 * Uploaded files on disk, one flat directory. Names are random and unguessable, which is what keeps
 * a file private: anyone holding its URL may read it, as legacy clients load images by plain URL.
 */
export class FileStore {
  constructor(
    readonly directory: string,
    readonly maxBytes: number,
  ) {}

  /** Writes the bytes under a new name and returns it; the content type must be allowed. */
  async save(bytes: Uint8Array, contentType: string): Promise<string> {
    const extension = allowedContentTypes[baseContentType(contentType)];
    if (!extension) throw new Error(`content type ${contentType} is not allowed`);
    await mkdir(this.directory, { recursive: true });
    const name = `${randomUUID()}.${extension}`;
    await writeFile(join(this.directory, name), bytes, { flag: 'wx' });
    return name;
  }

  /** The file's bytes and content type, or null for a name this store never gave out. */
  async read(name: string): Promise<{ bytes: Buffer; contentType: string } | null> {
    const match = STORED_NAME.exec(name);
    const contentType = match && contentTypeOfExtension[match[1]];
    if (!contentType) return null;
    try {
      return { bytes: await readFile(join(this.directory, name)), contentType };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  }

  /** Removes a file whose database row was never written (a failed upload). */
  async remove(name: string): Promise<void> {
    if (STORED_NAME.test(name)) await unlink(join(this.directory, name)).catch(() => undefined);
  }
}

let current: FileStore | undefined;

/** Makes `store` the process's file store (the HTTP app does, from the configuration). */
export function useFileStore(store: FileStore): void {
  current = store;
}

export function fileStore(): FileStore {
  if (!current) throw new Error('the file store is not configured');
  return current;
}
