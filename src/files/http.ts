import { Readable } from 'node:stream';
import { Hono, type MiddlewareHandler } from 'hono';
import { contentTypeOfName, fileStore } from './store.js';

/** Room for the multipart envelope and the operation around an upload of the largest allowed size. */
const MULTIPART_OVERHEAD_BYTES = 64 * 1024;

/** Request body limit of an upload (multipart) request, given the largest file. */
export function uploadBodyBytes(maxUploadBytes: number): number {
  return maxUploadBytes + MULTIPART_OVERHEAD_BYTES;
}

export function isMultipart(contentType: string | undefined): boolean {
  return (contentType ?? '').toLowerCase().startsWith('multipart/form-data');
}

/**
 * Picks the body limit by the kind of request: uploads may be larger than JSON operations. A GET or
 * HEAD has no body to limit, and asking for it would build the whole Fetch Request that the Node
 * adapter otherwise never makes (about a tenth of a small REST read's CPU).
 */
export function limitByKind(json: MiddlewareHandler, upload: MiddlewareHandler): MiddlewareHandler {
  return (c, next) => {
    if (c.req.method === 'GET' || c.req.method === 'HEAD') return next();
    return (isMultipart(c.req.header('content-type')) ? upload : json)(c, next);
  };
}

/** Types a browser would run as a page (scripts in SVG or HTML): downloaded, never displayed from this origin. */
const RUNNABLE_TYPES = new Set(['text/html', 'application/xhtml+xml', 'image/svg+xml']);

/** The bytes a `Range` header asks for (one range; several are answered whole), 'unsatisfiable', or undefined for all. */
export function requestedRange(
  header: string | undefined,
  size: number,
): { start: number; end: number } | 'unsatisfiable' | undefined {
  const match = header && /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match || (match[1] === '' && match[2] === '')) return undefined;
  const [start, end] =
    match[1] === ''
      ? [Math.max(0, size - Number(match[2])), size - 1]
      : [Number(match[1]), match[2] === '' ? size - 1 : Math.min(Number(match[2]), size - 1)];
  return start > end || start >= size ? 'unsatisfiable' : { start, end };
}

/** GET /<stored name>: the file with its stored content type, never sniffed, never run as a page; ranges for media players and resumed downloads. */
export function fileRoutes(): Hono {
  const routes = new Hono();
  routes.get('/:name', async (c) => {
    const name = c.req.param('name');
    const contentType = contentTypeOfName(name);
    const size = contentType ? await fileStore().size(name) : null;
    if (!contentType || size === null) return c.json({ detail: 'Not Found' }, 404);
    // A stored name is never reused for other content, so it is the entity tag.
    const etag = `"${name}"`;
    const headers: Record<string, string> = {
      'Content-Type': contentType,
      ETag: etag,
      'Accept-Ranges': 'bytes',
      'X-Content-Type-Options': 'nosniff',
      // An SVG or a PDF opened from this origin must not run scripts in it.
      'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; sandbox",
      'Cache-Control': 'public, max-age=31536000, immutable',
      ...(RUNNABLE_TYPES.has(contentType) ? { 'Content-Disposition': `attachment; filename="${name}"` } : {}),
    };
    if (c.req.header('if-none-match') === etag) return c.body(null, 304, headers);
    const range = requestedRange(c.req.header('range'), size);
    if (range === 'unsatisfiable') return c.body(null, 416, { ...headers, 'Content-Range': `bytes */${size}` });
    const { start, end } = range ?? { start: 0, end: size - 1 };
    const body = Readable.toWeb(Readable.from(fileStore().read(name, start, end))) as ReadableStream<Uint8Array>;
    if (!range) return c.body(body, 200, { ...headers, 'Content-Length': String(size) });
    return c.body(body, 206, {
      ...headers,
      'Content-Length': String(end - start + 1),
      'Content-Range': `bytes ${start}-${end}/${size}`,
    });
  });
  return routes;
}
