import { randomUUID } from 'node:crypto';

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

const contentTypeOfExtension = Object.fromEntries(
  Object.entries(allowedContentTypes).map(([type, extension]) => [extension, type]),
);

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

/** A new stored name for content of an allowed type. */
export function newStoredName(contentType: string): string {
  const extension = allowedContentTypes[baseContentType(contentType)];
  if (!extension) throw new Error(`content type ${contentType} is not allowed`);
  return `${randomUUID()}.${extension}`;
}

/** The content type of a stored name, or undefined for a name no store ever gave out. */
export function contentTypeOfName(name: string): string | undefined {
  const match = STORED_NAME.exec(name);
  return match ? contentTypeOfExtension[match[1]] : undefined;
}

/**
 * Where uploaded files live: the database (every instance serves every file) or a directory. Names
 * are random and unguessable, which is what keeps a file private: anyone holding its URL may read
 * it, as legacy clients load images by plain URL.
 */
export interface FileStore {
  readonly maxBytes: number;
  /** Stores the bytes under a new name and returns it; the content type must be allowed. */
  save(bytes: Uint8Array, contentType: string): Promise<string>;
  /** The size in bytes of a stored file, or null for a name this store does not hold. */
  size(name: string): Promise<number | null>;
  /** Bytes `start` to `end` (inclusive) of a stored file, a piece at a time. */
  read(name: string, start: number, end: number): AsyncIterable<Uint8Array>;
  /** Removes a file whose database row did not get written (a failed upload). */
  remove(name: string): Promise<void>;
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
