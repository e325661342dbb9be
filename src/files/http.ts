import { Hono, type MiddlewareHandler } from 'hono';
import { fileStore } from './store.js';

/** Room for the multipart envelope and the operation around an upload of the largest allowed size. */
const MULTIPART_OVERHEAD_BYTES = 64 * 1024;

/** Request body limit of an upload (multipart) request, given the largest file. */
export function uploadBodyBytes(maxUploadBytes: number): number {
  return maxUploadBytes + MULTIPART_OVERHEAD_BYTES;
}

export function isMultipart(contentType: string | undefined): boolean {
  return (contentType ?? '').toLowerCase().startsWith('multipart/form-data');
}

/** Picks the body limit by the kind of request: uploads may be larger than JSON operations. */
export function limitByKind(json: MiddlewareHandler, upload: MiddlewareHandler): MiddlewareHandler {
  return (c, next) => (isMultipart(c.req.header('content-type')) ? upload : json)(c, next);
}

/** GET /<stored name>: the file with its stored content type, never sniffed, never run as a page. */
export function fileRoutes(): Hono {
  const routes = new Hono();
  routes.get('/:name', async (c) => {
    const file = await fileStore().read(c.req.param('name'));
    if (!file) return c.json({ detail: 'Not Found' }, 404);
    return c.body(new Uint8Array(file.bytes), 200, {
      'Content-Type': file.contentType,
      'X-Content-Type-Options': 'nosniff',
      // An SVG or a PDF opened from this origin must not run scripts in it.
      'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; sandbox",
      // A stored name is never reused for other content.
      'Cache-Control': 'public, max-age=31536000, immutable',
    });
  });
  return routes;
}
