import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('../..', import.meta.url).pathname;

/**
 * How `npm run e2e` treats a shell block of docs/getting-started.md, as the comment above it says:
 * `serves` starts the gateway and keeps it running, `runs` runs beside it in one second shell, in
 * the page's order; `not run` names what runs it instead.
 */
export type BlockUse = 'serves' | 'runs' | 'not run';

export interface ShellBlock {
  /** The block's text, as a reader copies it. */
  text: string;
  /** From the `<!-- e2e: ... -->` comment on the line above the block; undefined when there is none. */
  use: BlockUse | undefined;
}

/** The ```sh blocks of a Markdown file of the repository. */
export function shellBlocks(path: string): ShellBlock[] {
  const page = readFileSync(join(root, path), 'utf8');
  return [...page.matchAll(/(?:<!-- e2e: (serves|runs|not run)\b[^\n]*-->\n)?```sh\n([\s\S]*?)```/g)].map(
    ([, use, text]) => ({ text, use: use as BlockUse | undefined }),
  );
}

export const GETTING_STARTED = 'docs/getting-started.md';

/** The demo owner's key the page shows in npm start's output, which the e2e gives the server so its picture stays the same. */
export function shownDemoKey(): string {
  const key = /API key \(X-API-KEY\): (wbg_\S+)/.exec(readFileSync(join(root, GETTING_STARTED), 'utf8'))?.[1];
  if (!key) throw new Error(`${GETTING_STARTED} shows no demo key in npm start's output`);
  return key;
}
