import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Browser, Page } from 'puppeteer-core';
import { commandLine } from '../src/cli.js';
import { buildServer } from '../test/helpers/processes.js';
import { checkPage, guardedPage, launchBrowser, log, WAIT_MS } from './e2e-browser.js';
import { runGettingStarted } from './e2e-docs.js';
import { webClient } from './e2e-web-client.js';

commandLine(`
usage: npm run e2e

Runs the shell blocks of docs/getting-started.md as written there (npm install && npm start on a new
embedded data directory, then the curl calls and the command line beside it), and opens that gateway
in a real headless Chromium: GraphiQL at /graphql (the demo key in the headers, the example query, the
Explorer; runs the query and reads the boards in the result; its picture goes to docs/images/graphiql.png)
and the OpenAPI page at /docs.
Then the web client of examples/web-client (built, its dependencies installed from its lockfile when
missing), served from a second port, against a gateway that lists that origin in CORS_ORIGINS and runs
only the client's persisted documents (TRUSTED_DOCUMENTS): it reads the boards with their streams and
slides, renames one, shows a rename sent over REST from outside as it happens, lists the boards over
REST; the same page from an origin not listed is refused by the browser, and a document the manifest
does not list is refused by the gateway. Then the page signs its user in at an OpenID provider of its
own (oidc-provider: its sign-in page, the authorization code flow with PKCE), reads, renames and hears
a rename with the access token, renews it before it expires, and signs out.
Fails on any request to a host other than the gateway and the client's port, and on any error in a page.
The browser is CHROMIUM (/usr/bin/chromium; Debian: apt-get install chromium).
`);

const temporary = mkdtempSync(join(tmpdir(), 'gateway-e2e-'));

/** The text of the Monaco editors inside `selector`, as shown. */
const editorText = (page: Page, selector: string) =>
  page.$$eval(`${selector} .view-lines`, (views) =>
    views
      // biome-ignore lint/performance/useDomNodeTextContent: the text as rendered, the way a user reads it
      .map((view) => (view as HTMLElement).innerText.replace(/\u00a0/g, ' '))
      .join('\n'),
  );

async function graphiql(page: Page, origin: string, demoKey: string): Promise<void> {
  await page.goto(`${origin}/graphql`);
  await page.waitForFunction(
    () => document.querySelector('.graphiql-query-editor .view-lines')?.textContent?.includes('NestedBoards'),
    { timeout: WAIT_MS },
  );
  const query = await editorText(page, '.graphiql-query-editor');
  if (!/query NestedBoards \{\s+whiteboards\(first: 5\)/.test(query))
    throw new Error(`the query editor holds no example query: ${query}`);
  log('the query editor opens with the example nested-board query');

  const [headersTab] = await page.$$(
    'xpath/.//div[contains(@class, "graphiql-editor-tools")]//button[normalize-space()="Headers"]',
  );
  await headersTab!.click();
  await page.waitForFunction(
    (key) =>
      [...document.querySelectorAll('.graphiql-editor-tool .view-lines')].some((view) =>
        view.textContent?.includes(key),
      ),
    { timeout: WAIT_MS },
    demoKey,
  );
  log('the headers editor holds the demo key');

  await page.waitForSelector('.graphiql-plugin .graphiql-explorer-whiteboards', { timeout: WAIT_MS });
  log('the Explorer shows the schema');

  const answer = page.waitForResponse(
    (response) =>
      response.url().startsWith(`${origin}/graphql`) &&
      response.request().method() === 'POST' &&
      response.request().postData()?.includes('NestedBoards') === true,
    { timeout: WAIT_MS },
  );
  await page.click('.graphiql-execute-button');
  const body = await (await answer).json();
  if (body.errors || !(body.data?.whiteboards?.totalCount > 0))
    throw new Error(`the example query answered ${JSON.stringify(body).slice(0, 500)}`);
  await page.waitForFunction(
    () => document.querySelector('.graphiql-response .view-lines')?.textContent?.includes('"whiteboards"'),
    { timeout: WAIT_MS },
  );
  log(`the run button answers ${body.data.whiteboards.totalCount} boards, shown in the result pane`);
  await picture(page);
}

/** The picture of GraphiQL that the README and getting started show, taken from the running gateway. */
const PICTURE = new URL('../docs/images/graphiql.png', import.meta.url).pathname;

/** Writes the picture when it is not the committed one (which then wants committing). */
async function picture(page: Page): Promise<void> {
  // Wide enough for the query's and the key's lines; the editors' scroll bars, which fade in and out
  // after a layout, and any transition left out, so the picture is the same from run to run; the
  // pointer away from the run button's tooltip.
  await page.setViewport({ width: 2000, height: 1000 });
  await page.addStyleTag({
    content: '.monaco-scrollable-element > .scrollbar { display: none !important } * { transition: none !important }',
  });
  await page.mouse.move(0, 0);
  await page.evaluate(() => document.fonts.ready.then(() => new Promise((done) => setTimeout(done, 1000))));
  const taken = Buffer.from(await page.screenshot({ type: 'png' }));
  if (existsSync(PICTURE) && readFileSync(PICTURE).equals(taken)) return log('the picture of GraphiQL is unchanged');
  mkdirSync(dirname(PICTURE), { recursive: true });
  writeFileSync(PICTURE, taken);
  log('the picture of GraphiQL changed: docs/images/graphiql.png is new, commit it');
}

async function docs(page: Page, origin: string): Promise<void> {
  await page.goto(`${origin}/docs`);
  await page.waitForSelector('.swagger-ui .opblock', { timeout: WAIT_MS });
  const operations = (await page.$$('.swagger-ui .opblock')).length;
  log(`/docs shows ${operations} operations`);
}

/** GraphiQL and /docs on the gateway that getting started's commands started, with the demo data. */
async function gatewayPages(browser: Browser): Promise<void> {
  const { origin, demoKey, stop } = await runGettingStarted(join(temporary, 'data'));
  try {
    const { page, problems } = await guardedPage(browser, [origin]);
    await checkPage(page, problems, 'graphiql', async () => {
      await graphiql(page, origin, demoKey);
      await docs(page, origin);
    });
  } finally {
    await stop();
  }
}

async function main(): Promise<void> {
  await buildServer();
  let browser: Browser | undefined;
  try {
    browser = await launchBrowser(join(temporary, 'profile'));
    await gatewayPages(browser);
    await webClient(browser, join(temporary, 'web-client-data'));
  } finally {
    await browser?.close();
    rmSync(temporary, { recursive: true, force: true });
  }
}

try {
  await main();
  log('passed');
} catch (error) {
  console.error(`e2e failed: ${(error as Error).message}`);
  process.exitCode = 1;
}
