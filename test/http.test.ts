import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { loadConfig } from '../src/config.js';
import { createApp } from '../src/http/app.js';
import { schema } from '../src/schema/index.js';
import { startTestServer, type TestServer } from './helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server?.close());

describe('probes', () => {
  it('answers /health and /ready', async () => {
    const health = await fetch(`${server.url}/health`);
    expect([health.status, await health.json()]).toEqual([200, { status: 'ok' }]);
    const ready = await fetch(`${server.url}/ready`);
    expect([ready.status, await ready.json()]).toEqual([200, { status: 'ready' }]);
  });

  it('answers 404 for an unknown path', async () => {
    const response = await fetch(`${server.url}/nowhere`);
    expect(response.status).toBe(404);
  });

  it('answers a URL too long for the HTTP parser with 431 and a body that says why (found by the fuzz suite)', async () => {
    const response = await fetch(`${server.url}/api/whiteboard/v1/?name=${'x'.repeat(20_000)}`, {
      headers: { 'x-api-key': server.keys.owner },
    });
    expect([response.status, await response.json()]).toEqual([
      431,
      { detail: 'Request header fields too large: the URL and headers may take 16 KB' },
    ]);
    expect((await fetch(`${server.url}/health`)).status).toBe(200);
  });
});

describe('GraphiQL', () => {
  it('serves the page and every asset it names from this server, none from elsewhere', async () => {
    const page = await fetch(`${server.url}/graphql`, { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).not.toMatch(/https?:\/\//);
    const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1]);
    expect(assets.length).toBeGreaterThanOrEqual(2);
    for (const asset of assets) {
      const response = await fetch(new URL(asset, server.url));
      expect(response.status, asset).toBe(200);
      expect((await response.arrayBuffer()).byteLength, asset).toBeGreaterThan(0);
    }
  });

  it('can be switched off, and introspection with it', async () => {
    const app = createApp({ schema, config: loadConfig({ GRAPHIQL: 'false', INTROSPECTION: 'false' }) });
    onTestFinished(app.close);
    const page = await app.request('/graphql', { headers: { accept: 'text/html' } });
    expect(await page.text()).not.toContain('<html');
    const introspection = await app.request('/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': server.keys.owner },
      body: JSON.stringify({ query: '{ __schema { queryType { name } } }' }),
    });
    const body = await introspection.json();
    expect(body.errors?.[0]?.message).toMatch(/introspection/i);
  });
});

describe('GraphQL over HTTP', () => {
  it('answers a query sent by GET', async () => {
    const get = await fetch(`${server.url}/graphql?query=${encodeURIComponent('{ rates(first: 1) { totalCount } }')}`, {
      headers: { 'x-api-key': server.keys.viewer },
    });
    expect(get.status).toBe(200);
    expect((await get.json()).data.rates.totalCount).toBe(4);
  });
});
