import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { commandLine } from '../src/cli.js';
import { buildServer, startServer } from '../test/helpers/processes.js';

commandLine(`
usage: npm run e2e

Opens the gateway in a real headless Chromium, as someone who just ran npm start would: the compiled
server on a new embedded data directory, GraphiQL at /graphql (the demo key in the headers, the example
query, the Explorer; runs the query and reads the boards in the result) and the OpenAPI page at /docs.
Fails on any request to a host other than the gateway, and on any error in the page.
The browser is CHROMIUM (/usr/bin/chromium; Debian: apt-get install chromium).
`);

const WAIT_MS = 120_000;
const chromium = process.env.CHROMIUM || '/usr/bin/chromium';
const temporary = mkdtempSync(join(tmpdir(), 'gateway-e2e-'));
const log = (message: string) => console.log(`e2e: ${message}`);

/** Watches every request of the page: the ones to another host are refused and remembered, as are page errors. */
function guard(page: Page, origin: string): string[] {
  const problems: string[] = [];
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (['data:', 'blob:'].includes(url.protocol) || url.origin === origin) return void request.continue();
    problems.push(`request to another host: ${request.url()}`);
    void request.abort();
  });
  page.on('pageerror', (error) => problems.push(`error in the page: ${(error as Error).message}`));
  return problems;
}

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
}

async function docs(page: Page, origin: string): Promise<void> {
  await page.goto(`${origin}/docs`);
  await page.waitForSelector('.swagger-ui .opblock', { timeout: WAIT_MS });
  const operations = (await page.$$('.swagger-ui .opblock')).length;
  log(`/docs shows ${operations} operations`);
}

async function main(): Promise<void> {
  buildServer();
  const server = startServer({ DATA_DIR: join(temporary, 'data'), PORT: '0' });
  let browser: Browser | undefined;
  try {
    const origin = new URL(await server.url).origin;
    const demoKey = server.lines.out.map((line) => /API key \(X-API-KEY\): (\S+)/.exec(line)?.[1]).find(Boolean);
    if (!demoKey) throw new Error(`the server printed no demo key: ${server.lines.out.join(' / ')}`);
    browser = await puppeteer.launch({
      executablePath: chromium,
      headless: true,
      userDataDir: join(temporary, 'profile'),
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--window-size=1400,1000',
      ],
      defaultViewport: { width: 1400, height: 1000 },
    });
    const page = await browser.newPage();
    await page.setRequestInterception(true);
    const problems = guard(page, origin);
    try {
      await graphiql(page, origin, demoKey);
      await docs(page, origin);
    } catch (error) {
      const screenshot = join(tmpdir(), 'gateway-e2e-failure.png');
      await page.screenshot({ path: screenshot }).catch(() => {});
      problems.unshift(`${(error as Error).message} (screenshot: ${screenshot})`);
    }
    if (problems.length) throw new Error(problems.join('\n'));
  } finally {
    await browser?.close();
    server.child.kill('SIGTERM');
    await server.exit;
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
