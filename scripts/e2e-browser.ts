import { tmpdir } from 'node:os';
import { join } from 'node:path';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';

/** How long a step may take before the run fails. */
export const WAIT_MS = 120_000;

export const log = (message: string) => console.log(`e2e: ${message}`);

/** Debian's Chromium (puppeteer-core downloads none), as the probe of this machine starts it. */
export function launchBrowser(profile: string): Promise<Browser> {
  return puppeteer.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    userDataDir: profile,
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
}

/** A page whose requests to any origin but `allowed` are refused and remembered, as are errors in the page. */
export async function guardedPage(browser: Browser, allowed: string[]): Promise<{ page: Page; problems: string[] }> {
  const page = await browser.newPage();
  await page.setRequestInterception(true);
  const problems: string[] = [];
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (['data:', 'blob:'].includes(url.protocol) || allowed.includes(url.origin)) return void request.continue();
    problems.push(`request to another host: ${request.url()}`);
    void request.abort();
  });
  page.on('pageerror', (error) => problems.push(`error in the page: ${(error as Error).message}`));
  return { page, problems };
}

/** Runs the checks of one page; a failure is kept with a screenshot of the page, beside what the guard saw. */
export async function checkPage(page: Page, problems: string[], name: string, checks: () => Promise<void>) {
  try {
    await checks();
  } catch (error) {
    const screenshot = join(tmpdir(), `gateway-e2e-${name}-failure.png`);
    await page.screenshot({ path: screenshot }).catch(() => {});
    problems.unshift(`${(error as Error).message} (screenshot: ${screenshot})`);
  }
  if (problems.length) throw new Error(problems.join('\n'));
}
