import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, release, totalmem } from 'node:os';
import type { BenchConfig } from './config.js';
import type { Case } from './case.js';
import type { LoadReport } from './dataset.js';
import type { LiveResult } from './live.js';
import type { WebhookResult } from './webhooks.js';
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
  /** PostgreSQL's execution time per request over the measured run (pg_stat_statements), when it counts. */
  executionMs?: number;
  /** Share of the machine other processes used meanwhile (0..1): high means a disturbed figure. */
  otherCpu: number;
}

export interface CaseResult {
  case: Case;
  /** One measurement per round, gateway, peer, audited peer and floor in turn. */
  gateway: Measured[];
  peer: Measured[];
  /** The audited peer (bench/audited-peer.ts): the renames only. */
  audited: Measured[];
  floor: Measured[];
  /** The servers whose answers the check found equal to the gateway's. */
  checked: string[];
  notes: string[];
}

export interface RunReport {
  config: BenchConfig;
  date: Date;
  serverVersion: string;
  dataset: LoadReport;
  results: CaseResult[];
  /** The live case, when it ran. */
  live?: LiveResult;
  /** The webhook case, when it ran. */
  webhooks?: WebhookResult;
  /** Peak resident memory over the whole run (VmHWM), bytes; the peer's when a request case ran. */
  gatewayPeakRss: number;
  peerPeakRss?: number;
  /** What each server runs on, e.g. `Node.js v20.20.2`, `PostGraphile 5.1.5 on Node.js v22.23.3`. */
  runtimes: { gateway: string; peer?: string };
  invariance: { constant: boolean; text: string };
  auth: string;
}

const mb = (bytes: number) => `${Math.round(bytes / 2 ** 20)} MB`;
const fixed = (n: number, digits = 0) => n.toFixed(digits);
const percent = (n: number) => `${Math.round(n * 100)}%`;
const mark = (ok: boolean) => (ok ? 'yes' : '**no**');
const roundCount = (n: number) => `${n} ${n === 1 ? 'round' : 'rounds'}`;

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** One server's figures in one case: medians over its rounds, errors summed, the highest peak. */
interface Summary {
  rps: number;
  rpsMin: number;
  rpsMax: number;
  p50: number;
  p99: number;
  /** The gateway's p99 over one connection. */
  p99Alone?: number;
  errors: number;
  sampleFailed: number;
  sampled: number;
  statements: { min: number; max: number; underLoad: number };
  cpu: { serverMs: number; databaseMs: number };
  executionMs?: number;
  peakRss: number;
  otherCpu: number;
}

function summarize(runs: Measured[]): Summary | undefined {
  if (runs.length === 0) return undefined;
  const mid = (pick: (m: Measured) => number) => median(runs.map(pick));
  const sum = (pick: (m: Measured) => number) => runs.reduce((total, m) => total + pick(m), 0);
  const alone = runs.flatMap((m) => (m.alone ? [m.alone.p99] : []));
  const execution = runs.flatMap((m) => (m.executionMs === undefined ? [] : [m.executionMs]));
  return {
    rps: mid((m) => m.load.rps),
    rpsMin: Math.min(...runs.map((m) => m.load.rps)),
    rpsMax: Math.max(...runs.map((m) => m.load.rps)),
    p50: mid((m) => m.load.p50),
    p99: mid((m) => m.load.p99),
    p99Alone: alone.length ? median(alone) : undefined,
    errors: sum((m) => m.load.non2xx + m.load.socketErrors),
    sampleFailed: sum((m) => m.sampleFailed),
    sampled: sum((m) => m.sampled),
    statements: {
      min: Math.min(...runs.map((m) => m.statements.min)),
      max: Math.max(...runs.map((m) => m.statements.max)),
      underLoad: mid((m) => m.statements.underLoad),
    },
    cpu: { serverMs: mid((m) => m.cpuPerRequest.serverMs), databaseMs: mid((m) => m.cpuPerRequest.databaseMs) },
    executionMs: execution.length ? median(execution) : undefined,
    peakRss: Math.max(...runs.map((m) => m.peakRss)),
    otherCpu: Math.max(...runs.map((m) => m.otherCpu)),
  };
}

const rps = (s: Summary) =>
  s.rpsMin === s.rpsMax ? fixed(s.rps) : `${fixed(s.rps)} (${fixed(s.rpsMin)}-${fixed(s.rpsMax)})`;
const errors = (s: Summary) =>
  s.sampleFailed ? `${s.errors} + ${s.sampleFailed}/${s.sampled} sampled` : String(s.errors);
const statementCell = ({ statements: { min, max, underLoad } }: Summary) =>
  `${min === max ? min : `${min}-${max}`} (${fixed(underLoad, 2)})`;
/** Server + database CPU per request. */
const cost = (s: Summary) => `${fixed(s.cpu.serverMs, 2)} + ${fixed(s.cpu.databaseMs, 2)}`;
/** PostgreSQL's execution milliseconds per request, three significant digits. */
const executionCell = (s: Summary | undefined) =>
  s?.executionMs === undefined ? '-' : s.executionMs.toPrecision(3).replace(/^(\d+)\.0+$/, '$1');

/** The servers of a case as the table shows them (median rounds). */
function summaries(r: CaseResult): { gateway?: Summary; peer?: Summary; audited?: Summary; floor?: Summary } {
  return {
    gateway: summarize(r.gateway),
    peer: summarize(r.peer),
    audited: summarize(r.audited),
    floor: summarize(r.floor),
  };
}

const serverNames = { gateway: 'gateway', peer: 'peer', audited: 'audited peer', floor: 'floor' } as const;

/** Gateway requests per second over the other server's, when both ran. */
function ratio(gateway: Summary | undefined, other: Summary | undefined): number | undefined {
  return gateway && other ? gateway.rps / other.rps : undefined;
}

function table(results: CaseResult[]): string {
  const lines = [
    '| case | server | req/s | p50 ms | p99 ms | p99 ms alone | errors | SQL/req | CPU ms/req | PG ms/req | peak RSS | gateway / server | other CPU |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const r of results) {
    const name = `${r.case.id}. ${r.case.title}`;
    const all = summaries(r);
    if (!all.gateway) {
      lines.push(`| ${name} | skipped | | | | | | | | | | | |`);
      continue;
    }
    for (const server of ['gateway', 'peer', 'audited', 'floor'] as const) {
      const s = all[server];
      if (!s) continue;
      const versus = server === 'gateway' ? '' : percent(ratio(all.gateway, s)!);
      const alone = s.p99Alone === undefined ? '-' : fixed(s.p99Alone);
      const cells = [
        server === 'gateway' ? name : '',
        serverNames[server],
        rps(s),
        fixed(s.p50),
        fixed(s.p99),
        alone,
        errors(s),
        statementCell(s),
        cost(s),
        executionCell(s),
        mb(s.peakRss),
        versus,
        percent(s.otherCpu),
      ];
      lines.push(`| ${cells.join(' | ')} |`);
    }
  }
  return lines.join('\n');
}

/**
 * What a request costs each server, PostgreSQL's execution time and Node's CPU, and so how many
 * requests one core of the database serves: the resource that runs out first where several gateway
 * instances share one primary.
 */
function costTable(results: CaseResult[]): string {
  const lines = [
    '| case | PostgreSQL ms/req: gateway / peer / floor | gateway / peer | Node CPU ms/req: gateway / peer / floor | req/s per database core: gateway / peer |',
    '|---|---:|---:|---:|---:|',
  ];
  const perCore = (s: Summary | undefined) => (s?.executionMs ? fixed(1000 / s.executionMs) : '-');
  for (const r of results) {
    const { gateway, peer, floor } = summaries(r);
    if (!gateway) continue;
    const versus =
      gateway.executionMs !== undefined && peer?.executionMs
        ? `${fixed(gateway.executionMs / peer.executionMs, 2)}x`
        : '-';
    const node = [gateway, peer, floor].map((s) => (s ? fixed(s.cpu.serverMs, 3) : '-')).join(' / ');
    lines.push(
      `| ${r.case.id}. ${r.case.title} | ${[gateway, peer, floor].map(executionCell).join(' / ')} | ${versus} | ${node} | ${perCore(gateway)} / ${perCore(peer)} |`,
    );
  }
  return lines.join('\n');
}

/**
 * The writes side by side with the audited peer, whose trigger does what the gateway's write does
 * besides the update (its change log entry, a notification): the fair comparison of a write.
 */
function auditedTable({ results, config }: RunReport): string[] {
  const audited = results.filter((r) => r.audited.length);
  if (!audited.length) return [];
  const lines = [
    '| case | server | req/s | p50 ms | p99 ms | Node CPU ms/req | PG ms/req | SQL/req | gateway / server |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const r of audited) {
    const all = summaries(r);
    for (const server of ['gateway', 'peer', 'audited'] as const) {
      const s = all[server];
      if (!s || !all.gateway) continue;
      const cells = [
        server === 'gateway' ? `${r.case.id}. ${r.case.title}` : '',
        serverNames[server],
        rps(s),
        fixed(s.p50),
        fixed(s.p99),
        fixed(s.cpu.serverMs, 3),
        executionCell(s),
        statementCell(s),
        server === 'gateway' ? '' : percent(ratio(all.gateway, s)!),
      ];
      lines.push(`| ${cells.join(' | ')} |`);
    }
  }
  return [
    lines.join('\n'),
    '',
    `The writes against the audited peer: PostGraphile as the peer, over a copy of the bench database in which an \`AFTER INSERT OR UPDATE OR DELETE ... FOR EACH ROW\` trigger on \`whiteboard\` (plpgsql, bench/audited-peer.ts) writes the change log entry the gateway writes (user, credential \`API_KEY\`, method, entity, organization, kind, board) and calls \`pg_notify('whiteboard', ...)\`; the user is \`bench.user_id\` (key 0's owner: the peer's requests carry no credential), ${config.auditedUser === 'request' ? "which the peer's pgSettings set per request (so PostGraphile wraps each of its statements in `BEGIN`, `set_config`, `COMMIT`)" : 'which its connections set once at their start (`BENCH_AUDITED_USER=connection`: the trigger alone)'}. Its CPU and PG ms/req are those of its copy's backends and statements; PG ms/req counts top-level statements only, and the trigger's time is inside that of the statement that fired it.`,
    '',
  ];
}

function targets(report: RunReport): string {
  const measured = report.results.map((r) => ({ r, ...summaries(r) })).filter((m) => m.gateway);
  const rows: string[] = ['| target | measured | met |', '|---|---|---|'];
  for (const { r, gateway, peer, floor } of measured) {
    const { peerTarget, floorTarget, statementTarget } = r.case;
    const versusPeer = ratio(gateway, peer);
    if (versusPeer !== undefined && peerTarget !== undefined)
      rows.push(
        `| ${r.case.id}: req/s at least ${percent(peerTarget)} of the peer's | ${percent(versusPeer)} | ${mark(versusPeer >= peerTarget)} |`,
      );
    const versusFloor = ratio(gateway, floor);
    if (versusFloor !== undefined && floorTarget !== undefined)
      rows.push(
        `| ${r.case.id}: req/s at least ${percent(floorTarget)} of the floor's | ${percent(versusFloor)} | ${mark(versusFloor >= floorTarget)} |`,
      );
    if (statementTarget !== undefined)
      rows.push(
        `| ${r.case.id}: at most ${statementTarget} statements per request | ${statementCell(gateway!)} | ${mark(gateway!.statements.max <= statementTarget)} |`,
      );
  }
  const reads = measured.filter(({ r, peer }) => peer && r.case.kind !== 'mutation');
  if (reads.length) {
    const cpu = reads.map(
      ({ r, gateway, peer }) => `${r.case.id} ${fixed(gateway!.cpu.serverMs, 2)} / ${fixed(peer!.cpu.serverMs, 2)}`,
    );
    rows.push(
      `| reads: gateway Node CPU per request at most the peer's (gateway / peer, ms) | ${cpu.join(', ')} | ${mark(reads.every(({ gateway, peer }) => gateway!.cpu.serverMs <= peer!.cpu.serverMs))} |`,
    );
  }
  const paired = measured.filter(({ peer }) => peer);
  const p99 = paired.map(({ r, gateway, peer }) => `${r.case.id} ${fixed(gateway!.p99)} / ${fixed(peer!.p99)}`);
  if (paired.length) {
    rows.push(
      `| p99 at ${report.config.connections} connections no worse than the peer's (gateway / peer, ms) | ${p99.join(', ')} | ${mark(paired.every(({ gateway, peer }) => gateway!.p99 <= peer!.p99))} |`,
    );
  }
  const peerRss = report.peerPeakRss === undefined ? '' : ` (the peer: ${mb(report.peerPeakRss)})`;
  rows.push(
    `| peak RSS at most 300 MB | ${mb(report.gatewayPeakRss)}${peerRss} | ${mark(report.gatewayPeakRss <= 300 * 2 ** 20)} |`,
  );
  const { live } = report;
  if (live) {
    const complete = live.delivered === live.expected && live.refused === 0;
    rows.push(
      `| live: delivery p99 under 100 ms with ${live.settings.subscribers} subscribers, every event delivered | ${fixed(live.latency.p99, 1)} ms, ${live.delivered} of ${live.expected} | ${mark(live.latency.p99 < 100 && complete)} |`,
    );
  }
  const { webhooks } = report;
  if (webhooks) {
    const { endpoints, rate } = webhooks.settings;
    rows.push(
      `| webhooks: commit to first delivery attempt p50 at most 100 ms and p99 at most 500 ms at ${rate} changes/s to ${endpoints} endpoints, every change attempted | p50 ${fixed(webhooks.latency.p50, 1)} ms, p99 ${fixed(webhooks.latency.p99, 1)} ms, ${webhooks.delivered} of ${webhooks.changes} | ${mark(webhooks.latency.p50 <= 100 && webhooks.latency.p99 <= 500 && webhooks.delivered === webhooks.changes)} |`,
    );
  }
  const steady = measured.every(({ gateway }) => gateway!.statements.min === gateway!.statements.max);
  rows.push(
    `| statements per request constant | ${report.invariance.text}; each case's sample ${steady ? 'constant' : 'varies'} | ${mark(report.invariance.constant && steady)} |`,
  );
  return rows.join('\n');
}

/** The commit measured, and whether the work tree differed from it. */
export function revision(): string {
  try {
    const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
    const changed = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { encoding: 'utf8' })
      .split('\n')
      .filter(Boolean).length;
    return changed ? `${commit} with ${changed} changed files` : commit;
  } catch {
    return 'unknown';
  }
}

function machine(report: RunReport): string {
  return [
    `- machine: ${availableParallelism()} CPUs (${cpus()[0]?.model.trim() ?? 'unknown'}), ${mb(totalmem())} memory, Linux ${release()}`,
    `- gateway and floor on ${report.runtimes.gateway}; peer: ${report.runtimes.peer ?? 'not run'}; the bench on Node.js ${process.version}; ${report.serverVersion} on the same machine (loopback)`,
    `- date: ${report.date.toISOString().slice(0, 16).replace('T', ' ')} UTC; commit ${revision()}; load average at the end ${loadavg()
      .map((n) => n.toFixed(1))
      .join(' ')}`,
  ].join('\n');
}

/** The bench's settings from the environment, as a command line's prefix. */
export function settingsGiven(): string {
  return (
    Object.entries(process.env)
      .filter(([name]) => name.startsWith('BENCH_') || name === 'DATABASE_URL' || name === 'DATABASE_POOL_SIZE')
      // A password in DATABASE_URL must not end up in a committed file.
      .map(([name, value]) => `${name}=${value?.replace(/\/\/([^:/@]+):[^@]*@/, '//$1:***@')} `)
      .join('')
  );
}

function command(config: BenchConfig, results: CaseResult[]): string {
  const settings = settingsGiven();
  if (!results.length) return `\`${settings}npm run bench\``;
  const audited = results.filter((r) => r.audited.length).map((r) => r.case.id);
  const servers = `gateway, peer${audited.length ? `, audited peer (${audited.join(', ')})` : ''} and floor`;
  const clients =
    config.mode === 'sequential'
      ? 'one client sending its requests in sequence'
      : `${config.connections} connections${config.mode === 'pinned' ? ', PostgreSQL pinned to CPU 0 and the servers and the load generator to CPU 1' : ''}`;
  return `\`${settings}npm run bench\` - per case ${servers} in turn, ${roundCount(config.rounds)}; each ${config.duration} s measured after ${config.warmup} s of warm-up, ${clients}, pools of ${config.poolSize}, ${config.samples} sampled requests per case; PostgreSQL ${config.ownServer ? "a cluster of the bench's own (pg_stat_statements loaded, fsync on)" : 'of DATABASE_URL'}`;
}

function liveSection(live: LiveResult): string {
  const { subscribers, perBoard, rate, seconds } = live.settings;
  return [
    `Live: ${subscribers} Server-Sent Events subscriptions to \`whiteboardEvents\` (${perBoard} per board on ${live.boards} boards, each with its organization owner's key) held on the gateway while ${rate} board renames per second ran for ${seconds} s.`,
    `Delivery latency, from a rename's answer (it commits before answering) to the first event that shows its name at a subscriber: p50 ${fixed(live.latency.p50, 1)} ms, p99 ${fixed(live.latency.p99, 1)} ms, max ${fixed(live.latency.max, 1)} ms (negative: the event came before the answer);`,
    `from the moment the rename was sent, its own time included: p50 ${fixed(live.sinceSent.p50, 1)} ms, p99 ${fixed(live.sinceSent.p99, 1)} ms;`,
    `${live.delivered} of ${live.expected} events delivered (warm-up included), ${live.refused} subscriptions refused or ended; the renames answered in p50 ${fixed(live.mutation.p50, 1)} ms, p99 ${fixed(live.mutation.p99, 1)} ms.`,
    `Gateway RSS ${mb(live.rss.before)} before the subscriptions opened, ${mb(live.rss.peak)} at the peak of the case.`,
  ].join(' ');
}

function webhookSection(webhooks: WebhookResult): string {
  const { endpoints, rate, seconds } = webhooks.settings;
  return [
    `Webhooks: a gateway of its own with webhooks on, one endpoint per organization (${endpoints}, on a loopback receiver that answers 204), ${rate} board renames per second over their boards for ${seconds} s.`,
    `From a rename's answer (it commits before answering) to the first attempt of its delivery at the receiver: p50 ${fixed(webhooks.latency.p50, 1)} ms, p99 ${fixed(webhooks.latency.p99, 1)} ms, max ${fixed(webhooks.latency.max, 1)} ms; ${webhooks.delivered} of ${webhooks.changes} changes attempted within 5 s of the last rename.`,
  ].join(' ');
}

/** The request cases' table with its legend and the answer check. */
function requestSection(report: RunReport): string[] {
  const checked = report.results.filter((r) => r.checked.length).map((r) => `${r.case.id} ${r.checked.join(' and ')}`);
  return [
    costTable(report.results),
    '',
    "PostgreSQL ms/req: the execution time of every top-level statement of the bench database (`total_exec_time` summed over `pg_stat_statements`, reset before each measured run; a statement's time holds its triggers') divided by the requests of the run; the median of the rounds. Node CPU ms/req: the server process's CPU time per request. Req/s per database core: 1000 / PostgreSQL ms/req, what one core of the database serves when it does nothing else (exact in the sequential mode, where no statement waits for another).",
    '',
    table(report.results),
    '',
    [
      `Gateway, peer, audited peer and floor: the median of ${roundCount(report.config.rounds)} (req/s with the lowest and highest in brackets when they differ).`,
      `p99 ms alone: the gateway's p99 over one connection, one request at a time (${report.config.duration} s after each measured run): the latency of a request that waits behind no other; at ${report.config.connections} busy connections the mean latency is ${report.config.connections} / (req/s) whatever the server does (Little's law).`,
      "SQL/req: statements each sampled request caused alone (min-max over the rounds; the gateway's keys made fresh in its principal cache first, so a key's refresh every 10 s falls outside the sample), and in brackets all statements of the measured run divided by its requests, the refreshes included.",
      "CPU ms/req: CPU time of the server process + of PostgreSQL's backends for the bench database, per request of the measured run. PG ms/req: PostgreSQL's execution time per request, as in the table above.",
      'Errors: non-2xx answers and socket errors under load, plus sampled answers that carried GraphQL `errors` (all rounds).',
      "Peak RSS: the server during that case (the highest round). Gateway / server: the gateway's req/s over that server's.",
      "Other CPU: the highest share of the machine that processes outside the measurement used during that server's runs (the bench first waits up to 60 s for it to fall under 5%); a high share means a disturbed figure.",
    ].join(' '),
    '',
    ...auditedTable(report),
    `Answers checked before the load, ${report.config.samples} requests per case, equal to the gateway's (the floor's JSON exactly, the peer's values in order): ${checked.length ? checked.join('; ') : 'none'}.`,
    '',
  ];
}

/** The generated section of BENCHMARKS.md (between its markers) and of the console output. */
export function renderResults(report: RunReport): string {
  const { dataset } = report;
  const rows = Object.entries(dataset.rows)
    .map(([table, count]) => `${table} ${count}`)
    .join(', ');
  const notes = report.results.flatMap((r) => r.notes.map((note) => `- ${r.case.id}: ${note}`));
  return [
    machine(report),
    `- command: ${command(report.config, report.results)}`,
    `- data set: loaded in ${fixed(dataset.seconds, 1)} s - ${rows}`,
    `- authentication: ${report.auth}`,
    '',
    ...(report.results.length ? requestSection(report) : []),
    ...(report.live ? [liveSection(report.live), ''] : []),
    ...(report.webhooks ? [webhookSection(report.webhooks), ''] : []),
    targets(report),
    '',
    ...(notes.length ? ['Notes of this run:', '', ...notes] : []),
  ].join('\n');
}

/** Replaces a generated section of the file (`results`, or `replica` for that case), keeping everything written around it by hand. */
export function writeResults(path: string, results: string, name = 'results'): void {
  const start = `<!-- bench:${name}:start -->`;
  const end = `<!-- bench:${name}:end -->`;
  const section = `${start}\n${results}\n${end}`;
  const current = existsSync(path) ? readFileSync(path, 'utf8') : `# Benchmarks\n\n${start}\n${end}\n`;
  const from = current.indexOf(start);
  const to = current.indexOf(end);
  const next =
    from >= 0 && to > from
      ? current.slice(0, from) + section + current.slice(to + end.length)
      : `${current.trimEnd()}\n\n${section}\n`;
  writeFileSync(path, next);
}
