// Every npm script that runs a file of this repository answers --help with its usage and exit 0, and
// refuses an option it does not take with exit 2 before doing anything. The scripts that run a tool
// (build, test, typecheck, generate) answer --help with that tool's own text.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runScript } from './helpers/processes.js';

const scripts = Object.entries(
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).scripts as Record<string, string>,
)
  .filter(([, command]) => /\.(ts|js)$/.test(command) && !command.startsWith('vitest '))
  .map(([name]) => name);

describe('npm run <script> -- --help', () => {
  it('covers the scripts the docs name', () => {
    expect(scripts).toEqual(
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

  // A process each, waiting on its start more than on the CPU: several at once.
  it.concurrent.each(scripts)(
    '%s prints its usage and exits 0; an unknown option exits 2',
    async (script) => {
      const help = await runScript(script, ['--help'], {});
      expect(help.code, help.stderr).toBe(0);
      expect(help.stdout).toMatch(/^usage: npm (start|run \S+)/);
      const wrong = await runScript(script, ['--no-such-option'], {});
      expect(wrong.code).toBe(2);
      expect(wrong.stderr).toContain("Unknown option '--no-such-option'");
      expect(wrong.stderr).toContain('usage: npm');
    },
    60_000,
  );
});
