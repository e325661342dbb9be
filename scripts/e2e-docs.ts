import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { GETTING_STARTED, shellBlocks, shownDemoKey } from '../test/helpers/shell-blocks.js';
import { log, WAIT_MS } from './e2e-browser.js';

const root = new URL('..', import.meta.url).pathname;

/** The gateway that getting started's first block started, as a newcomer has it in a first shell. */
export interface StartedGateway {
  origin: string;
  demoKey: string;
  stop(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
    probe.on('error', reject);
  });
}

/** What a reader puts in place of the page's placeholders: this run's port, and the key the server printed. */
const filledIn = (text: string, port: number, demoKey: string) =>
  text.replaceAll('localhost:4000', `localhost:${port}`).replaceAll('wbg_...', demoKey);

/** Runs the `serves` block in a process group of its own; resolves once the server says where it serves. */
async function serve(text: string, env: NodeJS.ProcessEnv): Promise<{ child: ChildProcess; output: string[] }> {
  const child = spawn('bash', ['-c', text], { cwd: root, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const output: string[] = [];
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`no start line within ${WAIT_MS} ms: ${output.join('')}`)),
      WAIT_MS,
    );
    const read = (chunk: Buffer) => {
      output.push(chunk.toString());
      if (/Whiteboard gateway on http:\/\/localhost:\d+\/graphql/.test(output.join(''))) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', read);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`"${text.trim()}" exited (${code}) before serving: ${output.join('')}`));
    });
  });
  return { child, output };
}

/** Runs the `runs` blocks in order in one shell, as typed into a second terminal; each must succeed. */
function runInOneShell(blocks: string[], env: NodeJS.ProcessEnv): Promise<string[]> {
  const marker = '@@ block done';
  const script = ['set -e -o pipefail', ...blocks.map((block) => `${block}\necho; echo '${marker}'`)].join('\n');
  return new Promise((resolve, reject) => {
    const shell = spawn('bash', ['-s'], { cwd: root, env });
    let out = '';
    let err = '';
    shell.stdout.on('data', (chunk: Buffer) => (out += chunk));
    shell.stderr.on('data', (chunk: Buffer) => (err += chunk));
    shell.on('exit', (code) => {
      const outputs = out.split(`${marker}\n`).slice(0, -1);
      if (code === 0 && outputs.length === blocks.length) return resolve(outputs);
      reject(new Error(`block ${outputs.length + 1} failed (${code}):\n${blocks[outputs.length]}\n${out}${err}`));
    });
    shell.stdin.end(script);
  });
}

/** An answer of either door that is an error: GraphQL's `errors`, REST's `detail`. */
function refusal(output: string): string | undefined {
  return /"errors"\s*:|"detail"\s*:/.test(output) ? output.trim().slice(0, 500) : undefined;
}

/**
 * Runs the shell blocks of getting started as written, the way its comments say: the first in a shell
 * of its own until the server serves, the others one after the other in a second shell. The page's
 * `localhost:4000` and `wbg_...` are filled in as a reader would; DATA_DIR and PORT are this run's own,
 * and DEMO_API_KEY is the key the page shows, so that the picture of GraphiQL stays the same.
 */
export async function runGettingStarted(dataDir: string): Promise<StartedGateway> {
  const blocks = shellBlocks(GETTING_STARTED);
  const [first, ...rest] = blocks;
  if (first?.use !== 'serves' || rest.some((block) => block.use !== 'runs' && block.use !== 'not run'))
    throw new Error(`${GETTING_STARTED}: the first shell block must serve, and every block say how it is run`);
  const port = await freePort();
  const shownKey = shownDemoKey();
  const env = { ...process.env, DATA_DIR: dataDir, PORT: String(port), DEMO_API_KEY: shownKey };
  const { child, output } = await serve(first.text, env);
  const stop = async () => {
    if (child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    process.kill(-child.pid!, 'SIGTERM');
    await exited;
  };
  try {
    const demoKey = /Demo owner's API key \(X-API-KEY\): (\S+)/.exec(output.join(''))?.[1];
    if (demoKey !== shownKey) throw new Error(`npm start printed no demo key, or another: ${output.join('')}`);
    log(`getting started: "${first.text.trim()}" serves on port ${port} and printed the demo key`);
    const runs = rest.filter((block) => block.use === 'runs').map((block) => filledIn(block.text, port, demoKey));
    const outputs = await runInOneShell(runs, env);
    outputs.forEach((answer, index) => {
      const refused = refusal(answer);
      if (refused) throw new Error(`${GETTING_STARTED}: "${runs[index].trim()}" answered ${refused}`);
      log(`getting started: ran "${runs[index].trim().split('\n')[0]}"`);
    });
    return { origin: `http://localhost:${port}`, demoKey, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
