// The commands the docs show are the ones that run: npm run e2e runs the shell blocks of getting
// started as written (scripts/e2e-docs.ts), each marked with how; the README's blocks are getting
// started's own, and a block the e2e leaves is one .ci/run runs. GraphiQL opens with the query getting
// started shows, and the README stays a front door that leads to every page of docs/.
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { EXAMPLE_QUERY } from '../src/http/graphiql.js';
import { GETTING_STARTED, shellBlocks } from './helpers/shell-blocks.js';

const text = (path: string) => readFileSync(new URL(`../${path}`, import.meta.url), 'utf8');
const blocks = shellBlocks(GETTING_STARTED);

describe('the shell blocks of getting started', () => {
  it('each say how npm run e2e runs them: the first starts the gateway', () => {
    expect(blocks.length).toBeGreaterThan(3);
    expect(blocks.filter((block) => block.use === undefined).map((block) => block.text)).toEqual([]);
    expect(blocks.map((block) => block.use === 'serves')).toEqual(blocks.map((_, index) => index === 0));
  });

  it("hold the README's", () => {
    const readme = shellBlocks('README.md');
    expect(readme.length).toBeGreaterThan(1);
    for (const block of readme) expect(blocks.map((each) => each.text)).toContain(block.text);
  });

  it('that the e2e leaves are commands .ci/run runs', () => {
    const ci = text('.ci/run')
      .split('\n')
      .map((line) => line.trim());
    const left = blocks.filter((block) => block.use === 'not run');
    for (const command of left.flatMap((block) => block.text.trim().split('\n'))) expect(ci).toContain(command);
  });
});

it('getting started shows the query GraphiQL opens with', () => {
  expect(text(GETTING_STARTED)).toContain(`\`\`\`graphql\n${EXAMPLE_QUERY}\`\`\``);
});

describe('README.md', () => {
  it('is a front door: at most 250 lines', () => {
    expect(text('README.md').split('\n').length).toBeLessThanOrEqual(250);
  });

  it('leads to every page of docs/', () => {
    const readme = text('README.md');
    const pages = readdirSync(new URL('../docs', import.meta.url)).filter((name) => name.endsWith('.md'));
    expect(pages.filter((page) => !readme.includes(`](docs/${page})`))).toEqual([]);
  });
});
