import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendGraphQL } from './helpers/graphql.js';
import WebSocket from 'ws';
import { loadConfig } from '../src/config.js';
import { routes } from '../src/rest/routes/index.js';
import { pngBytes, uploadFile } from './helpers/files.js';
import { startInstance, startTestServer, type TestServer } from './helpers/server.js';

const app = 'http://app.test:5173';
const stranger = 'http://evil.test';
const boardPath = '/api/whiteboard/v1/{whiteboard_id}/';

let server: TestServer;
let file: string;
beforeAll(async () => {
  server = await startTestServer({ CORS_ORIGINS: `${app}, https://admin.test`, RATE_LIMIT: '100' });
  const upload = await uploadFile(server.url, server.keys.owner, pngBytes(64), 'image/png', 'dot.png');
  file = upload.data.uploadFile.file.file;
});
afterAll(() => server?.close());

/** A browser's preflight: OPTIONS with the origin, the method and the headers the page's request will carry. */
function preflight(url: string, origin: string, method: string, headers = 'content-type,x-api-key') {
  return fetch(url, {
    method: 'OPTIONS',
    headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': headers },
  });
}

const corsHeaders = (response: Response) =>
  [...response.headers.keys()].filter((name) => name.startsWith('access-control-'));

function postGraphQLFrom(origin: string | undefined, url = server.url) {
  return sendGraphQL(url, '{ whiteboards(first: 1) { totalCount } }', {
    key: server.keys.owner,
    headers: origin ? { origin } : {},
  });
}

describe('a listed origin', () => {
  it('gets a preflight of /graphql answered with its methods and headers, never credentials', async () => {
    const response = await preflight(`${server.url}/graphql`, app, 'POST');
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe(app);
    expect(response.headers.get('access-control-allow-methods')).toBe('GET, POST');
    expect(response.headers.get('access-control-allow-headers')).toBe(
      'X-API-KEY, Authorization, Content-Type, X-Request-Id, Idempotency-Key',
    );
    expect(response.headers.get('access-control-max-age')).toBe('600');
    expect(response.headers.get('access-control-allow-credentials')).toBeNull();
    expect(response.headers.get('vary')).toBe('Origin');
  });

  it('reads /graphql, with the request id and the rate-limit headers exposed to the page', async () => {
    const response = await postGraphQLFrom(app);
    expect(response.status).toBe(200);
    expect((await response.json()).data.whiteboards.totalCount).toBeGreaterThan(0);
    expect(response.headers.get('access-control-allow-origin')).toBe(app);
    expect(response.headers.get('access-control-allow-credentials')).toBeNull();
    expect(response.headers.get('access-control-expose-headers')).toBe(
      'X-Request-Id, WWW-Authenticate, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, Retry-After, Idempotent-Replayed',
    );
    expect(response.headers.get('ratelimit-limit')).toBe('1000');
  });

  it('gets a REST route preflight answered with the methods the route table has at that path', async () => {
    const methods = [...new Set(routes.filter((route) => route.path === boardPath).map((route) => route.method))];
    expect(methods.length).toBeGreaterThan(1);
    const response = await preflight(`${server.url}/api/whiteboard/v1/1/`, app, 'PUT');
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe(app);
    expect(response.headers.get('access-control-allow-methods')).toBe(methods.join(', '));
    expect(response.headers.get('access-control-allow-headers')).toBe(
      'X-API-KEY, Authorization, Content-Type, X-Request-Id, Idempotency-Key, If-Match, If-None-Match',
    );

    const read = await fetch(`${server.url}/api/whiteboard/v1/`, {
      headers: { origin: app, 'x-api-key': server.keys.owner },
    });
    expect(read.status).toBe(200);
    expect(read.headers.get('access-control-allow-origin')).toBe(app);
    expect(read.headers.get('access-control-expose-headers')).toBe(
      'X-Request-Id, WWW-Authenticate, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, Retry-After, Idempotent-Replayed, X-Total-Count, ETag',
    );
    expect(Number(read.headers.get('x-total-count'))).toBeGreaterThan(0);
  });

  it('follows the redirect of a REST path without its trailing slash', async () => {
    const response = await preflight(`${server.url}/api/whiteboard/v1`, app, 'GET', 'x-api-key');
    expect(response.headers.get('access-control-allow-methods')).toBe('GET, POST');
    const redirect = await fetch(`${server.url}/api/whiteboard/v1`, { headers: { origin: app }, redirect: 'manual' });
    expect(redirect.status).toBe(307);
    expect(redirect.headers.get('access-control-allow-origin')).toBe(app);
  });

  it('reads the OpenAPI document and files, each preflight with its own methods', async () => {
    const document = await preflight(`${server.url}/api/openapi.json`, app, 'GET', 'x-request-id');
    expect(document.headers.get('access-control-allow-methods')).toBe('GET');
    const openapi = await fetch(`${server.url}/api/openapi.json`, { headers: { origin: app } });
    expect(openapi.headers.get('access-control-allow-origin')).toBe(app);

    const filePreflight = await preflight(`${server.url}${file}`, app, 'GET', 'range');
    expect(filePreflight.headers.get('access-control-allow-methods')).toBe('GET, HEAD');
    expect(filePreflight.headers.get('access-control-allow-headers')).toBe('Range, If-None-Match, X-Request-Id');
    const bytes = await fetch(`${server.url}${file}`, { headers: { origin: app, range: 'bytes=0-7' } });
    expect(bytes.status).toBe(206);
    expect(bytes.headers.get('access-control-allow-origin')).toBe(app);
    expect(bytes.headers.get('access-control-expose-headers')).toContain('Content-Range');
  });

  it('opens a WebSocket on /graphql', async () => {
    expect(await upgrade(server.url, app)).toBe('open');
  });
});

describe('an origin that is not listed', () => {
  it('gets no CORS header on a preflight of either door, /files or the OpenAPI document', async () => {
    for (const path of ['/graphql', '/api/whiteboard/v1/', '/api/openapi.json', file]) {
      const response = await preflight(server.url + path, stranger, 'GET');
      expect(response.status, path).toBe(204);
      expect(corsHeaders(response), path).toEqual([]);
    }
  });

  it('gets no CORS header on the answer either, so a browser keeps it from the page', async () => {
    const graphql = await postGraphQLFrom(stranger);
    expect(corsHeaders(graphql)).toEqual([]);
    const read = await fetch(`${server.url}/api/whiteboard/v1/`, {
      headers: { origin: stranger, 'x-api-key': server.keys.owner },
    });
    expect(read.status).toBe(200);
    expect(corsHeaders(read)).toEqual([]);
  });

  it('is refused a WebSocket, which browsers open from any page', async () => {
    expect(await upgrade(server.url, stranger)).toBe('refused 403');
  });
});

describe('without an Origin header (not a browser) or off the covered paths', () => {
  it('answers as always, with no CORS header', async () => {
    expect(corsHeaders(await postGraphQLFrom(undefined))).toEqual([]);
    const health = await fetch(`${server.url}/health`, { headers: { origin: app } });
    expect(health.status).toBe(200);
    expect(corsHeaders(health)).toEqual([]);
    expect(await upgrade(server.url, undefined)).toBe('open');
  });

  it('lets a page of the gateway itself open a WebSocket whatever the list', async () => {
    expect(await upgrade(server.url, server.url)).toBe('open');
  });

  it('leaves a plain OPTIONS (no preflight) to the route, as before', async () => {
    const response = await fetch(`${server.url}/api/whiteboard/v1/`, { method: 'OPTIONS', headers: { origin: app } });
    expect(response.status).toBe(405);
  });
});

describe('the defaults', () => {
  it('outside production: any origin, as `*` without credentials', async () => {
    const instance = await startInstance({});
    try {
      const response = await preflight(`${instance.url}/graphql`, stranger, 'POST');
      expect(response.headers.get('access-control-allow-origin')).toBe('*');
      expect(response.headers.get('access-control-allow-credentials')).toBeNull();
      expect(response.headers.get('vary')).toBeNull();
      expect(await upgrade(instance.url, stranger)).toBe('open');
    } finally {
      await instance.close();
    }
  });

  it('in production: no cross-origin access at all', async () => {
    const instance = await startInstance({ NODE_ENV: 'production' });
    try {
      const response = await preflight(`${instance.url}/graphql`, app, 'POST');
      expect(corsHeaders(response)).toEqual([]);
      expect(corsHeaders(await postGraphQLFrom(app, instance.url))).toEqual([]);
      expect(await upgrade(instance.url, app)).toBe('refused 403');
    } finally {
      await instance.close();
    }
  });
});

describe('CORS_ORIGINS', () => {
  it('takes origins as a browser sends them, or * alone', () => {
    expect(loadConfig({ CORS_ORIGINS: 'https://App.Example.com:443, http://localhost:5173/' }).corsOrigins).toEqual([
      'https://app.example.com',
      'http://localhost:5173',
    ]);
    expect(loadConfig({ CORS_ORIGINS: '*', NODE_ENV: 'production' }).corsOrigins).toBe('*');
    expect(loadConfig({}).corsOrigins).toBe('*');
    expect(loadConfig({ NODE_ENV: 'production' }).corsOrigins).toEqual([]);
  });

  it('refuses what is not an origin, and * among others', () => {
    expect(() => loadConfig({ CORS_ORIGINS: 'https://app.example.com/path' })).toThrow(
      'CORS_ORIGINS: "https://app.example.com/path" is not an origin (scheme://host[:port], no path)',
    );
    expect(() => loadConfig({ CORS_ORIGINS: 'app.example.com' })).toThrow('is not an origin');
    expect(() => loadConfig({ CORS_ORIGINS: '*, https://app.example.com' })).toThrow(
      'CORS_ORIGINS: * (any origin) stands alone',
    );
  });
});

/** Opens a WebSocket on /graphql with this Origin (undefined: none, as a non-browser client). */
function upgrade(url: string, origin: string | undefined): Promise<string> {
  return new Promise((resolve) => {
    const socket = new WebSocket(`${url.replace('http', 'ws')}/graphql`, 'graphql-transport-ws', { origin });
    socket.once('open', () => {
      socket.close();
      resolve('open');
    });
    socket.once('unexpected-response', (_request, response) => resolve(`refused ${response.statusCode}`));
    socket.once('error', (error) => resolve(`error ${error.message}`));
  });
}
