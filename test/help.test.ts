// Every npm script that runs a file of this repository answers --help with its usage and exit 0, and
// refuses an option it does not take with exit 2 before doing anything. The scripts that run a tool
// (build, test, typecheck, generate) answer --help with that tool's own text. The files are loaded in
// this process, as their scripts name them: a process each (npm, then tsx) took most of a minute per
// script on a loaded two-core machine.
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { runScript } from './helpers/processes.js';

const root = new URL('..', import.meta.url);
const scripts = Object.entries(
  JSON.parse(readFileSync(new URL('package.json', root), 'utf8')).scripts as Record<string, string>,
)
  .filter(([, command]) => /\.(ts|js)$/.test(command) && !command.startsWith('vitest '))
  .map(([name, command]) => ({ name, file: new URL(command.split(' ').at(-1) as string, root).href }));

class Exit extends Error {
  constructor(readonly code: number) {
    super(`exit ${code}`);
  }
}

/** Loads a script's file with `args` on its command line, as a new module; its exit code and what it printed. */
async function run(file: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const printed = { stdout: '', stderr: '' };
  vi.spyOn(console, 'log').mockImplementation((...line) => void (printed.stdout += `${line.join(' ')}\n`));
  vi.spyOn(console, 'error').mockImplementation((...line) => void (printed.stderr += `${line.join(' ')}\n`));
  vi.spyOn(process, 'exit').mockImplementation((code) => {
    throw new Exit(Number(code ?? 0));
  });
  vi.spyOn(process, 'argv', 'get').mockReturnValue([process.execPath, file, ...args]);
  // The query makes a module of its own per call, so the file's top level runs again.
  const exit = await import(/* @vite-ignore */ `${file}?${args.join('&')}`).then(
    () => new Exit(0),
    (error: unknown) => {
      if (error instanceof Exit) return error;
      throw error;
    },
  );
  return { code: exit.code, ...printed };
}

afterEach(() => {
  vi.restoreAllMocks();
  // A server's entry point listens for signals before it reads its command line.
  for (const signal of ['SIGTERM', 'SIGINT'] as const)
    for (const listener of process.listeners(signal)) if (listener.name === 'shutdown') process.off(signal, listener);
});

describe('npm run <script> -- --help', () => {
  it('covers the scripts the docs name', () => {
    expect(scripts.map(({ name }) => name)).toEqual(
      expect.arrayContaining([
        'dev',
        'start',
        'db:migrate',
        'db:migration',
        'db:seed',
        'schema:print',
        'openapi:print',
        'api-key',
        'bench',
        'e2e',
      ]),
    );
  });

  it.each(scripts)('$name prints its usage and exits 0; an unknown option exits 2', async ({ file }) => {
    const help = await run(file, ['--help']);
    expect(help.code, help.stderr).toBe(0);
    expect(help.stdout).toMatch(/^usage: npm (start|run \S+)/);
    const wrong = await run(file, ['--no-such-option']);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain("Unknown option '--no-such-option'");
    expect(wrong.stderr).toContain('usage: npm');
  });

  it('reaches the file through npm, arguments and all', async () => {
    const help = await runScript('schema:print', ['--help'], {});
    expect(help.code, help.stderr).toBe(0);
    expect(help.stdout).toMatch(/^usage: npm run schema:print/);
  });
});
