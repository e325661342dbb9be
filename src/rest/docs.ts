import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Hono } from 'hono';

/** Where the docs page loads Swagger UI from: the installed swagger-ui-dist, never a CDN. */
const ASSETS_PATH = '/docs/assets';

const distDir = () => dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
const assets = new Map([
  ['swagger-ui.css', 'text/css; charset=utf-8'],
  ['swagger-ui-bundle.js', 'text/javascript; charset=utf-8'],
  ['favicon-32x32.png', 'image/png'],
]);

// validatorUrl: null keeps Swagger UI from sending the document to its public validator.
const init = `window.ui = SwaggerUIBundle({ url: '/api/openapi.json', dom_id: '#swagger-ui', deepLinking: true, persistAuthorization: true, validatorUrl: null });`;

const page = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Whiteboard gateway: legacy REST v1</title>
<link rel="icon" href="${ASSETS_PATH}/favicon-32x32.png">
<link rel="stylesheet" href="${ASSETS_PATH}/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="${ASSETS_PATH}/swagger-ui-bundle.js"></script>
<script src="${ASSETS_PATH}/init.js"></script>
</body>
</html>
`;

/** `/docs`: Swagger UI over /api/openapi.json, its files served from node_modules. */
export function docsPage(): Hono {
  const app = new Hono();
  app.get('/docs', (c) => c.html(page));
  app.get(`${ASSETS_PATH}/init.js`, (c) => c.body(init, 200, { 'Content-Type': 'text/javascript; charset=utf-8' }));
  app.get(`${ASSETS_PATH}/:name`, async (c) => {
    const type = assets.get(c.req.param('name'));
    if (!type) return c.json({ detail: 'Not Found' }, 404);
    const body = await readFile(join(distDir(), c.req.param('name')));
    return c.body(new Uint8Array(body), 200, { 'Content-Type': type, 'Cache-Control': 'public, max-age=3600' });
  });
  return app;
}
