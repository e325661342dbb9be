import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { onCleanup } from './cleanup.js';
import { freePort } from '../test/helpers/private-postgres.js';

const START_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 15_000;
const RSS_INTERVAL_MS = 200;
const SETTLE_TIMEOUT_MS = 30_000;

/** A server under measurement, in a child process of its own, on 127.0.0.1. */
export interface ChildServer {
  name: string;
  url: string;
  pid: number;
  /** SQL statements the process has sent so far (counted inside it, see statement-probe.mjs). */
  statements(): Promise<number>;
  /** Peak resident memory since the last `resetPeak()`, in bytes (sampled every 200 ms). */
  windowPeakRss(): number;
  resetPeak(): void;
  /** The kernel's high-water mark of resident memory over the process's whole life (VmHWM), in bytes. */
  peakRss(): number;
  /** Waits until the server has finished what a load run left in flight (its statement count stands still). */
  settle(): Promise<void>;
  /** The last lines the process printed, for error messages. */
  output(): string;
  stop(): Promise<void>;
}

/** A field of /proc/<pid>/status in bytes (VmRSS, VmHWM); 0 once the process is gone. */
function procStatus(pid: number, field: string): number {
  try {
    const match = readFileSync(`/proc/${pid}/status`, 'utf8').match(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm'));
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** `npm start`'s command in the checkout at `dir`, run by `sh` as npm runs it (its `exec` keeps the child's pid the gateway's). */
export function startScript(dir = '.'): string {
  const { scripts } = JSON.parse(readFileSync(`${dir}/package.json`, 'utf8')) as { scripts: Record<string, string> };
  return scripts.start;
}

export interface StartOptions {
  name: string;
  /** The program and its arguments, e.g. ['sh', '-c', 'exec node dist/main.js']; the process must end up as the server's (exec). */
  command: string[];
  env: Record<string, string>;
  /** Working directory of the process. @default the bench's */
  cwd?: string;
  /** Path answering 200 once the server can take load. */
  readyPath: string;
}

/** Starts `command` with PORT set to a free port and waits until `readyPath` answers 200. */
export async function startServer(options: StartOptions): Promise<ChildServer> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  // The IPC channel carries the statement count; its closing also tells the child that the bench is gone.
  const child: ChildProcess = spawn(options.command[0], options.command.slice(1), {
    env: { ...process.env, ...options.env, PORT: String(port) },
    cwd: options.cwd,
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  const pid = child.pid!;
  const lines: string[] = [];
  const keep = (chunk: Buffer) => {
    lines.push(...chunk.toString().split('\n').filter(Boolean));
    lines.splice(0, Math.max(0, lines.length - 40));
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  let exited = false;
  const exit = new Promise<void>((resolve) => child.once('exit', () => ((exited = true), resolve())));

  let windowPeak = 0;
  const sampler = setInterval(() => (windowPeak = Math.max(windowPeak, procStatus(pid, 'VmRSS'))), RSS_INTERVAL_MS);
  let hwm = 0;

  const stop = async () => {
    clearInterval(sampler);
    if (exited) return;
    hwm = procStatus(pid, 'VmHWM');
    child.kill('SIGTERM');
    const stopped = await Promise.race([exit.then(() => true), sleep(STOP_TIMEOUT_MS).then(() => false)]);
    if (!stopped) child.kill('SIGKILL');
  };
  onCleanup(`stop ${options.name}`, stop);

  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    if (exited) throw new Error(`${options.name} exited during start:\n${lines.join('\n')}`);
    if (Date.now() > deadline)
      throw new Error(`${options.name} not ready after ${START_TIMEOUT_MS / 1000} s:\n${lines.join('\n')}`);
    const ready = await fetch(url + options.readyPath).then(
      (response) => response.ok,
      () => false,
    );
    if (ready) break;
    await sleep(200);
  }

  const statements = (): Promise<number> =>
    new Promise((resolve, reject) => {
      // A server that died mid-run fails the run with its last words, and the cleanup still runs.
      const gone = () => new Error(`${options.name} exited during the run:\n${lines.join('\n')}`);
      if (exited) return reject(gone());
      const timer = setTimeout(() => reject(new Error(`${options.name} did not report its statement count`)), 5_000);
      child.once('message', (message) => {
        clearTimeout(timer);
        resolve((message as { statements: number }).statements);
      });
      child.send('statements', (error) => error && (clearTimeout(timer), reject(gone())));
    });

  return {
    name: options.name,
    url,
    pid,
    statements,
    async settle() {
      // The load generator drops its connections at the end; the server still answers what it had queued.
      let last = await statements();
      for (const deadline = Date.now() + SETTLE_TIMEOUT_MS; Date.now() < deadline; ) {
        await sleep(250);
        const now = await statements();
        if (now === last) return;
        last = now;
      }
    },
    windowPeakRss: () => Math.max(windowPeak, procStatus(pid, 'VmRSS')),
    resetPeak: () => (windowPeak = 0),
    peakRss: () => (exited ? hwm : procStatus(pid, 'VmHWM')),
    output: () => lines.join('\n'),
    stop,
  };
}
