import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize } from 'node:path';
import type { Browser, Page } from 'puppeteer-core';
import { AUDIENCE, demoAccounts, TestProvider, WEB_CLIENT_ID } from '../test/helpers/oidc-provider.js';
import { startServer } from '../test/helpers/processes.js';
import { checkPage, guardedPage, log, WAIT_MS } from './e2e-browser.js';

const client = new URL('../examples/web-client/', import.meta.url).pathname;
const manifest = join(client, 'src/generated/graphql/persisted-documents.json');
const types: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json',
};

/** Builds the client as its README says: types and manifest generated, type-checked, bundled into dist/. */
function buildClient(): void {
  if (!existsSync(join(client, 'node_modules')))
    execFileSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: client });
  execFileSync('npm', ['run', '--silent', 'build'], { cwd: client, stdio: ['ignore', 'ignore', 'inherit'] });
}

/** dist/ on a port of its own, as any static host would serve it. */
async function serveClient(): Promise<Server> {
  const dist = join(client, 'dist');
  const server = createServer(async (request, response) => {
    const path = new URL(request.url ?? '/', 'http://client').pathname;
    const file = normalize(join(dist, path === '/' ? 'index.html' : path));
    const body = file.startsWith(dist) ? await readFile(file).catch(() => undefined) : undefined;
    if (!body) return void response.writeHead(404).end();
    response.writeHead(200, { 'Content-Type': types[extname(file)] ?? 'application/octet-stream' }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

const status = (page: Page) => page.$eval('#status', (element) => element.textContent ?? '');

async function waitForText(page: Page, selector: string, text: string, timeout = WAIT_MS): Promise<void> {
  await page.waitForFunction(
    (selector, text) => [...document.querySelectorAll(selector)].some((element) => element.textContent?.includes(text)),
    { timeout },
    selector,
    text,
  );
}

async function connect(page: Page, clientOrigin: string, gateway: string, key: string): Promise<void> {
  await page.goto(`${clientOrigin}/?gateway=${encodeURIComponent(gateway)}`);
  await page.type('#api-key', key);
  await page.click('#connect button[type=submit]');
}

/** Seconds an access token of the e2e's provider lives, and how long before its expiry the page renews it. */
const TOKEN_SECONDS = 40;
const RENEW_BEFORE = 30;

/** A rename sent from outside by a legacy caller, over REST with the demo key. */
async function sendRename(gateway: string, key: string, rowId: number, name: string): Promise<void> {
  const renamed = await fetch(`${gateway}/api/whiteboard/v1/${rowId}/`, {
    method: 'PUT',
    headers: { 'Content-Type': 'application/json', 'X-API-KEY': key },
    body: JSON.stringify({ name }),
  });
  if (renamed.status !== 200) throw new Error(`the REST rename answered ${renamed.status}`);
}

/** A rename from outside, which the page must show over its subscription. */
async function renameFromOutside(page: Page, gateway: string, key: string, rowId: number, name: string): Promise<void> {
  await sendRename(gateway, key, rowId, name);
  await waitForText(page, '#events li', `UPDATED board ${rowId}: ${name}`);
}

/**
 * The same, for a page that opens its subscription again at each renewal (every 10 s here): a rename
 * committed while the new socket is not yet subscribed is not heard, so up to three are sent, in turn.
 */
async function renameHeardAcrossRenewals(page: Page, gateway: string, key: string, rowId: number, name: string) {
  for (let attempt = 1; ; attempt++) {
    await sendRename(gateway, key, rowId, `${name} (${attempt})`);
    try {
      return await waitForText(page, '#events li', `UPDATED board ${rowId}: ${name} (${attempt})`, 5_000);
    } catch (error) {
      if (attempt === 3) throw error;
    }
  }
}

/** The page of the listed origin: the nested read, a rename, a rename from outside, REST, and the gateway's refusals. */
async function listedOrigin(page: Page, clientOrigin: string, gateway: string, key: string): Promise<void> {
  await connect(page, clientOrigin, gateway, key);
  await page.waitForFunction(() => /^\d+ boards$/.test(document.querySelector('#status')?.textContent ?? ''), {
    timeout: WAIT_MS,
  });
  const boards = await page.$$eval('.board', (elements) => elements.length);
  const slides = await page.$$eval('.board .stream .slides li', (elements) => elements.length);
  if (!boards || !slides) throw new Error(`the page shows ${boards} boards and ${slides} slides`);
  log(`the client reads ${boards} boards with their streams and ${slides} slides, by persisted documents`);

  await page.waitForFunction(() => document.querySelectorAll('#rest-boards li').length > 0, { timeout: WAIT_MS });
  const total = await page.$eval('#rest-total', (element) => element.textContent ?? '');
  if (total !== `${boards} boards (X-Total-Count)`) throw new Error(`REST says "${total}", GraphQL ${boards} boards`);
  log(`the typed REST client lists the same boards over GET /api/whiteboard/v1/ (${total})`);

  const rowId = Number(await page.$eval('.board', (element) => element.getAttribute('data-row-id')));
  await page.type('.board .rename input', 'Renamed in the browser');
  await page.click('.board .rename button');
  await waitForText(page, '#status', `Renamed board ${rowId} to Renamed in the browser`);
  log('the client renames a board (a persisted mutation)');

  // A legacy caller renames it again; the page's subscription (graphql-ws) shows it as it commits.
  await renameFromOutside(page, gateway, key, rowId, 'Renamed over REST');
  await waitForText(page, `[data-row-id="${rowId}"] .board-name`, 'Renamed over REST');
  log('a rename sent from outside reaches the page over its subscription');

  // Sent from the page; no function is declared inside (tsx would wrap it in a helper the page lacks).
  const refusals = await page.evaluate(
    (gateway, key) =>
      Promise.all(
        [
          { extensions: { persistedQuery: { version: 1, sha256Hash: '0'.repeat(64) } } },
          { query: '{ whiteboards { totalCount } }' },
        ].map(async (body) => {
          const response = await fetch(`${gateway}/graphql`, {
            method: 'POST',
            headers: { 'Content-Type': 'application/json', 'X-API-KEY': key },
            body: JSON.stringify(body),
          });
          return (await response.json()).errors?.[0]?.extensions?.code;
        }),
      ),
    gateway,
    key,
  );
  if (refusals.join() !== 'PERSISTED_QUERY_NOT_IN_LIST,PERSISTED_QUERY_ID_REQUIRED')
    throw new Error(`documents outside the manifest were answered ${refusals.join(', ')}`);
  log('the gateway refuses a hash the manifest does not list, and a query sent as text');
}

/**
 * The page signs its user in at the provider (authorization code with PKCE, oidc-client-ts): the
 * provider's own sign-in page, then back to the page, which calls both doors and holds its
 * subscription with the access token, renews it before it expires (and keeps its subscription), and
 * signs out at the provider.
 */
async function signedIn(page: Page, clientOrigin: string, gateway: string, provider: TestProvider, key: string) {
  const settings = new URLSearchParams({
    gateway,
    issuer: provider.issuer,
    client_id: WEB_CLIENT_ID,
    audience: AUDIENCE,
    renew_before: String(RENEW_BEFORE),
  });
  await page.goto(`${clientOrigin}/?${settings}`);
  await page.waitForSelector('#sign-in:not([hidden])', { timeout: WAIT_MS });
  await Promise.all([page.waitForNavigation({ timeout: WAIT_MS }), page.click('#sign-in')]);
  if (!page.url().startsWith(provider.issuer)) throw new Error(`Sign in led to ${page.url()}, not the provider`);
  await page.type('input[name=login]', 'owner');
  await Promise.all([page.waitForNavigation({ timeout: WAIT_MS }), page.click('button[type=submit]')]);
  await page.waitForFunction(() => /^\d+ boards$/.test(document.querySelector('#status')?.textContent ?? ''), {
    timeout: WAIT_MS,
  });
  await waitForText(page, '#organization', 'olivia.owner@');
  log(`signed in at the provider (${provider.issuer}) with the authorization code flow and PKCE; no key pasted`);

  await page.waitForFunction(() => document.querySelectorAll('#rest-boards li').length > 0, { timeout: WAIT_MS });
  const rowId = Number(await page.$eval('.board', (element) => element.getAttribute('data-row-id')));
  await page.type('.board .rename input', 'Renamed by a signed-in user');
  await page.click('.board .rename button');
  await waitForText(page, '#status', `Renamed board ${rowId} to Renamed by a signed-in user`);
  await renameFromOutside(page, gateway, key, rowId, 'Heard with a token');
  log('with the access token: both doors answer, a rename works, the subscription hears a rename from outside');

  // Renewed every 10 s from then on: the steps above may already have seen more than one.
  await page.waitForFunction(
    () => /^Token renewed \(\d+\)/.test(document.querySelector('#signed-in')?.textContent ?? ''),
    { timeout: WAIT_MS },
  );
  await renameHeardAcrossRenewals(page, gateway, key, rowId, 'Heard after the renewal');
  log(`the token was renewed ${RENEW_BEFORE} s before its expiry, and the subscription goes on with the new one`);

  await Promise.all([page.waitForNavigation({ timeout: WAIT_MS }), page.click('#sign-out')]);
  await Promise.all([page.waitForNavigation({ timeout: WAIT_MS }), page.click('button[name=logout]')]);
  await page.waitForSelector('#sign-in:not([hidden])', { timeout: WAIT_MS });
  if (await page.$eval('#signed-in', (element) => element.textContent))
    throw new Error('still signed in after signing out');
  log('signing out at the provider brings the page back signed out');
}

/** The same page served from an origin CORS_ORIGINS does not list: the browser keeps every answer from it. */
async function unlistedOrigin(page: Page, clientOrigin: string, gateway: string, key: string): Promise<void> {
  const blocked: string[] = [];
  page.on('console', (message) => {
    if (message.text().includes('blocked by CORS policy')) blocked.push(message.text());
  });
  await connect(page, clientOrigin, gateway, key);
  await waitForText(
    page,
    '#status',
    `did not answer this page: is it running, and does its CORS_ORIGINS list ${clientOrigin}?`,
  );
  const socket = await page.evaluate(
    (url) =>
      new Promise<string>((resolve) => {
        const ws = new WebSocket(url, 'graphql-transport-ws');
        ws.onopen = () => resolve('open');
        ws.onerror = () => resolve('refused');
      }),
    `${gateway.replace('http', 'ws')}/graphql`,
  );
  if (!blocked.length || socket !== 'refused')
    throw new Error(
      `from ${clientOrigin}: "${await status(page)}", ${blocked.length} CORS refusals, WebSocket ${socket}`,
    );
  log(`from ${clientOrigin}, not listed, the browser blocks the answers (CORS) and the gateway the WebSocket`);
}

/**
 * The web client of examples/web-client, built and served from a second port, against a gateway that
 * lists that origin and runs only the client's manifest. `localhost` and `127.0.0.1` are two origins of
 * the same port: the second is the one listed.
 */
export async function webClient(browser: Browser, dataDir: string): Promise<void> {
  buildClient();
  const files = await serveClient();
  const port = (files.address() as AddressInfo).port;
  const [listed, unlisted] = [`http://127.0.0.1:${port}`, `http://localhost:${port}`];
  const provider = await TestProvider.start({
    accounts: demoAccounts(),
    redirectUris: [`${listed}/`],
    webOrigins: [listed],
    accessTokenTtl: TOKEN_SECONDS,
  });
  const server = startServer({
    DATA_DIR: dataDir,
    PORT: '0',
    CORS_ORIGINS: listed,
    TRUSTED_DOCUMENTS: manifest,
    GRAPHIQL: 'false',
    OIDC_ISSUER: provider.issuer,
    OIDC_AUDIENCE: AUDIENCE,
  });
  try {
    const gateway = (await server.url).replace('localhost', '127.0.0.1');
    const key = server.lines.out.map((line) => /API key \(X-API-KEY\): (\S+)/.exec(line)?.[1]).find(Boolean);
    if (!key) throw new Error(`the server printed no demo key: ${server.lines.out.join(' / ')}`);
    log(`the web client on ${listed}, the gateway on ${gateway} with CORS_ORIGINS=${listed}`);
    const allowed = [new URL(gateway).origin, listed, unlisted, provider.issuer];
    const first = await guardedPage(browser, allowed);
    await checkPage(first.page, first.problems, 'web-client', () => listedOrigin(first.page, listed, gateway, key));
    const signedInPage = await guardedPage(browser, allowed);
    await checkPage(signedInPage.page, signedInPage.problems, 'web-client-signed-in', () =>
      signedIn(signedInPage.page, listed, gateway, provider, key),
    );
    const second = await guardedPage(browser, allowed);
    await checkPage(second.page, second.problems, 'web-client-unlisted', () =>
      unlistedOrigin(second.page, unlisted, gateway, key),
    );
  } finally {
    server.child.kill('SIGTERM');
    await server.exit;
    files.close();
    await provider.close();
  }
}
