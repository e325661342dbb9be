import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, release, totalmem } from 'node:os';
import type { BenchConfig } from './config.js';
import type { Case } from './cases.js';
import type { LoadReport } from './dataset.js';
import type { LoadResult } from './load.js';

export interface Measured {
  load: LoadResult;
  /** The same requests over one connection, one at a time (the gateway only): latency without a queue. */
  alone?: LoadResult;
  /** Statements per request: each sampled request alone, and the whole measured run divided by its requests. */
  statements: { min: number; max: number; underLoad: number };
  /** Requests of the sample whose answer failed (status or GraphQL errors), of how many. */
  sampleFailed: number;
  sampled: number;
  /** The first distinct failure messages of the sample. */
  messages: string[];
  /** Peak resident memory of the server during this case, bytes. */
  peakRss: number;
  /** CPU milliseconds per request in the server process and in PostgreSQL's backends, over the measured run. */
  cpuPerRequest: { serverMs: number; databaseMs: number };
  /** Share of the machine other processes used meanwhile (0..1): high means a disturbed figure. */
  otherCpu: number;
}

export interface CaseResult {
  case: Case;
  gateway?: Measured;
  floor?: Measured;
  notes: string[];
}

export interface RunReport {
  config: BenchConfig;
  date: Date;
  serverVersion: string;
  dataset: LoadReport;
  results: CaseResult[];
  /** The gateway's peak resident memory over the whole run (VmHWM), bytes. */
  gatewayPeakRss: number;
  invariance: { constant: boolean; text: string };
  auth: string;
}

const mb = (bytes: number) => `${Math.round(bytes / 2 ** 20)} MB`;
const fixed = (n: number, digits = 0) => n.toFixed(digits);
const percent = (n: number) => `${Math.round(n * 100)}%`;
const mark = (ok: boolean) => (ok ? 'yes' : '**no**');

function errors(m: Measured): string {
  const counted = m.load.non2xx + m.load.socketErrors;
  return m.sampleFailed ? `${counted} + ${m.sampleFailed}/${m.sampled} sampled` : String(counted);
}

function statements(m: Measured): string {
  const range = m.statements.min === m.statements.max ? `${m.statements.min}` : `${m.statements.min}-${m.statements.max}`;
  return `${range} (${fixed(m.statements.underLoad, 2)})`;
}

/** Server + database CPU per request. */
const cost = (m: Measured) => `${fixed(m.cpuPerRequest.serverMs, 1)} + ${fixed(m.cpuPerRequest.databaseMs, 1)}`;

const ratio = (r: CaseResult) => (r.gateway && r.floor ? r.gateway.load.rps / r.floor.load.rps : undefined);

function table(results: CaseResult[]): string {
  const lines = [
    '| case | req/s | p50 ms | p99 ms | p99 ms alone | errors | SQL/req | CPU ms/req | peak RSS | floor req/s | floor p50 | floor p99 | floor CPU ms/req | gateway/floor | other CPU |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const r of results) {
    const name = `${r.case.id}. ${r.case.title}`;
    const g = r.gateway;
    if (!g) {
      lines.push(`| ${name} | skipped | | | | | | | | | | | | | |`);
      continue;
    }
    const f = r.floor;
    const cells = [name, fixed(g.load.rps), fixed(g.load.p50), fixed(g.load.p99), g.alone ? fixed(g.alone.p99) : '-', errors(g), statements(g), cost(g), mb(g.peakRss)];
    cells.push(f ? fixed(f.load.rps) : '-', f ? fixed(f.load.p50) : '-', f ? fixed(f.load.p99) : '-', f ? cost(f) : '-');
    const r1 = ratio(r);
    cells.push(r1 === undefined ? '-' : percent(r1));
    cells.push([g, f].filter((m) => m !== undefined).map((m) => percent(m!.otherCpu)).join(' / '));
    lines.push(`| ${cells.join(' | ')} |`);
  }
  return lines.join('\n');
}

function targets(report: RunReport): string {
  const measured = report.results.filter((r) => r.gateway);
  const rows: string[] = ['| target | measured | met |', '|---|---|---|'];
  for (const r of measured) {
    const value = ratio(r);
    if (value === undefined || r.case.ratioTarget === undefined) continue;
    rows.push(`| ${r.case.id}: ${r.case.kind} at least ${percent(r.case.ratioTarget)} of the floor | ${percent(value)} | ${mark(value >= r.case.ratioTarget)} |`);
  }
  const p99 = measured.map((r) => `${r.case.id} ${fixed(r.gateway!.load.p99)}`);
  rows.push(`| p99 under 50 ms at ${report.config.connections} connections | ${p99.join(', ')} | ${mark(measured.every((r) => r.gateway!.load.p99 < 50))} |`);
  const alone = measured.filter((r) => r.gateway!.alone);
  const p99Alone = alone.map((r) => `${r.case.id} ${fixed(r.gateway!.alone!.p99)}`);
  rows.push(`| (for comparison) p99 under 50 ms with one connection | ${p99Alone.join(', ')} | ${alone.filter((r) => r.gateway!.alone!.p99 < 50).length} of ${alone.length} cases |`);
  rows.push(`| peak RSS under 300 MB | ${mb(report.gatewayPeakRss)} | ${mark(report.gatewayPeakRss < 300 * 2 ** 20)} |`);
  const steady = measured.every((r) => r.gateway!.statements.min === r.gateway!.statements.max);
  rows.push(`| statements per request constant | ${report.invariance.text}; each case's sample ${steady ? 'constant' : 'varies'} | ${mark(report.invariance.constant && steady)} |`);
  return rows.join('\n');
}

/** The commit measured, and whether the work tree differed from it. */
function revision(): string {
  try {
    const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
    const changed = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { encoding: 'utf8' }).split('\n').filter(Boolean).length;
    return changed ? `${commit} with ${changed} changed files` : commit;
  } catch {
    return 'unknown';
  }
}

function machine(report: RunReport): string {
  return [
    `- machine: ${availableParallelism()} CPUs (${cpus()[0]?.model.trim() ?? 'unknown'}), ${mb(totalmem())} memory, Linux ${release()}`,
    `- Node.js ${process.version}; ${report.serverVersion} on the same machine (loopback)`,
    `- date: ${report.date.toISOString().slice(0, 16).replace('T', ' ')} UTC; commit ${revision()}; load average at the end ${loadavg().map((n) => n.toFixed(1)).join(' ')}`,
  ].join('\n');
}

function command(config: BenchConfig): string {
  const settings = Object.entries(process.env)
    .filter(([name]) => name.startsWith('BENCH_') || name === 'DATABASE_URL' || name === 'DATABASE_POOL_SIZE')
    // A password in DATABASE_URL must not end up in a committed file.
    .map(([name, value]) => `${name}=${value?.replace(/\/\/([^:/@]+):[^@]*@/, '//$1:***@')} `)
    .join('');
  return `\`${settings}npm run bench\` - ${config.duration} s measured after ${config.warmup} s of warm-up per case and server, ${config.connections} connections, pools of ${config.poolSize}, ${config.samples} sampled requests per case`;
}

/** The generated section of BENCHMARKS.md (between its markers) and of the console output. */
export function renderResults(report: RunReport): string {
  const { dataset } = report;
  const rows = Object.entries(dataset.rows).map(([table, count]) => `${table} ${count}`).join(', ');
  const notes = report.results.flatMap((r) => r.notes.map((note) => `- ${r.case.id}: ${note}`));
  return [
    machine(report),
    `- command: ${command(report.config)}`,
    `- data set: loaded in ${fixed(dataset.seconds, 1)} s - ${rows}`,
    `- authentication: ${report.auth}`,
    '',
    table(report.results),
    '',
    [
      `p99 ms alone: the gateway's p99 over one connection, one request at a time (${report.config.duration} s after the measured run): the latency of a request that waits behind no other; at ${report.config.connections} busy connections the mean latency is ${report.config.connections} / (req/s) whatever the server does (Little's law).`,
      'SQL/req: statements each sampled request caused alone (min-max), and in brackets all statements of the measured run divided by its requests.',
      "CPU ms/req: CPU time of the server process + of PostgreSQL's backends for the bench database, per request of the measured run.",
      'Errors: non-2xx answers and socket errors under load, plus sampled answers that carried GraphQL `errors`.',
      'Peak RSS: the gateway during that case. The floor always costs one statement.',
      'Other CPU: share of the machine that processes outside the measurement used during the gateway / floor run (the bench first waits up to 60 s for it to fall under 5%); a high share means a disturbed figure.',
    ].join(' '),
    '',
    targets(report),
    '',
    ...(notes.length ? ['Notes of this run:', '', ...notes] : []),
  ].join('\n');
}

const start = '<!-- bench:results:start -->';
const end = '<!-- bench:results:end -->';

/** Replaces the generated section of the file, keeping everything written around it by hand. */
export function writeResults(path: string, results: string): void {
  const section = `${start}\n${results}\n${end}`;
  const current = existsSync(path) ? readFileSync(path, 'utf8') : `# Benchmarks\n\n${start}\n${end}\n`;
  const from = current.indexOf(start);
  const to = current.indexOf(end);
  const next = from >= 0 && to > from ? current.slice(0, from) + section + current.slice(to + end.length) : `${current.trimEnd()}\n\n${section}\n`;
  writeFileSync(path, next);
}
