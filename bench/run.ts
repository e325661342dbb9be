/**
 * `npm run bench`: the gateway against the floor (one hand-written statement per request) on a
 * generated production-size data set in a PostgreSQL database of its own. See BENCHMARKS.md.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { buildCases, type Case } from './cases.js';
import { compareWithFloor, sample, statementInvariance } from './checks.js';
import { cleanup, cleanupOnSignals } from './cleanup.js';
import { loadBenchConfig } from './config.js';
import { OwnProcesses, waitForQuiet, watchCost, watchCpu } from './cpu.js';
import { createBenchDatabase } from './database.js';
import { loadDataset, size } from './dataset.js';
import { issueKeys } from './keys.js';
import { runLoad } from './load.js';
import { renderResults, writeResults, type CaseResult, type Measured } from './report.js';
import { startServer, type ChildServer } from './servers.js';
import { openDatabase } from '../src/db/index.js';

const config = loadBenchConfig();
const log = (message: string) => console.log(`[bench] ${message}`);

/** `npm start`'s command, run by `sh` as npm runs it (its `exec` keeps the child's pid the gateway's). */
function startScript(): string {
  const { scripts } = JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> };
  return scripts.start;
}

/** Warm-up, the sequential sample, then the measured run, against one server. */
async function measure(server: ChildServer, source: Parameters<typeof runLoad>[1], own: OwnProcesses, withAlone = false): Promise<Measured & { bodies: unknown[] }> {
  await waitForQuiet(own);
  const cpu = await watchCpu(own);
  server.resetPeak();
  await runLoad(server.url, source, config.connections, config.warmup);
  await server.settle();
  // An even count, so the mutation case leaves every board as it found it.
  const count = config.samples + (config.samples % 2);
  const probe = await sample(server, Array.from({ length: count }, (_, i) => source.request(i)));
  const before = await server.statements();
  const cost = await watchCost(own, server.pid);
  const load = await runLoad(server.url, source, config.connections, config.duration);
  await server.settle();
  // Every request sent was served to the end, even those the load generator stopped waiting for.
  const underLoad = ((await server.statements()) - before) / Math.max(1, load.sent);
  const cpuPerRequest = await cost(load.sent);
  const otherCpu = await cpu.stop();
  const alone = withAlone ? await runLoad(server.url, source, 1, config.duration) : undefined;
  return {
    load,
    alone,
    statements: { min: Math.min(...probe.statements), max: Math.max(...probe.statements), underLoad },
    sampleFailed: probe.failed,
    sampled: count,
    messages: probe.messages,
    peakRss: server.windowPeakRss(),
    cpuPerRequest,
    otherCpu,
    bodies: probe.bodies,
  };
}

async function runCase(entry: Case, gateway: ChildServer, floor: ChildServer, own: OwnProcesses): Promise<CaseResult> {
  const result: CaseResult = { case: entry, notes: [...entry.notes] };
  if (entry.skip) {
    log(`${entry.id}. ${entry.title}: skipped - ${entry.skip}`);
    result.notes.push(`skipped: ${entry.skip}`);
    return result;
  }
  log(`${entry.id}. ${entry.title}: gateway`);
  const { bodies, ...gatewayRun } = await measure(gateway, { request: entry.gateway, constant: entry.constant, run: entry.run ?? 1 }, own, true);
  result.gateway = gatewayRun;
  if (gatewayRun.messages.length) result.notes.push(`sampled answers failed: ${gatewayRun.messages.join(' | ')}`);
  if (entry.floor) {
    const floorPath = entry.floor;
    log(`${entry.id}. ${entry.title}: floor`);
    const floorRequest = (i: number) => ({ method: 'GET' as const, path: floorPath(i), headers: {} });
    const { bodies: floorBodies, ...floorRun } = await measure(floor, { request: floorRequest, constant: entry.constant, run: 1 }, own);
    result.floor = floorRun;
    const difference = compareWithFloor(bodies, floorBodies);
    if (difference) result.notes.push(difference);
    if (floorRun.load.non2xx + floorRun.load.socketErrors > 0) result.notes.push(`the floor had ${floorRun.load.non2xx + floorRun.load.socketErrors} errors`);
  }
  const g = result.gateway;
  log(`${entry.id}. ${g.load.rps.toFixed(0)} req/s, p99 ${g.load.p99} ms${result.floor ? `, floor ${result.floor.load.rps.toFixed(0)} req/s` : ''}`);
  return result;
}

async function main(): Promise<void> {
  cleanupOnSignals();
  // Nothing may run unbounded: a generous ceiling over the whole run, in case a server stops answering.
  const budget = 600 + 7 * 2 * (config.warmup + config.duration + 60);
  setTimeout(() => {
    console.error(`[bench] still running after ${budget} s: giving up`);
    void cleanup().finally(() => process.exit(1));
  }, budget * 1000).unref();

  const database = await createBenchDatabase(config.adminUrl);
  log(`database ${database.name} (${database.serverVersion})`);
  await (await openDatabase({ databaseUrl: database.url, poolSize: 2 })).close(); // migrates it
  const dataset = await loadDataset(database.url);
  log(`data set loaded in ${dataset.seconds.toFixed(1)} s`);
  const keys = await issueKeys(database.url, size.organizations);

  // The gateway runs as `npm start` runs it: compiled, with the start script's Node options.
  execFileSync('npm', ['run', '--silent', 'build'], { stdio: 'inherit' });
  const env = { DATABASE_URL: database.url, DATABASE_POOL_SIZE: String(config.poolSize) };
  // The probe and the profiler come in through NODE_OPTIONS, so the start script runs unchanged.
  const nodeOptions = ['--import ./bench/gateway-probe.mjs', ...(config.profileDir ? [`--cpu-prof --cpu-prof-dir=${config.profileDir}`] : [])];
  const gateway = await startServer({
    name: 'gateway',
    command: ['sh', '-c', startScript()],
    env: { ...env, NODE_ENV: 'production', NODE_OPTIONS: [process.env.NODE_OPTIONS ?? '', ...nodeOptions].join(' ').trim() },
    readyPath: '/ready',
  });
  const floor = await startServer({ name: 'floor', command: [process.execPath, '--import', 'tsx', 'bench/floor-server.ts'], env, readyPath: '/health' });
  log(`gateway ${gateway.url} (pid ${gateway.pid}), floor ${floor.url} (pid ${floor.pid})`);

  const all = await buildCases(gateway.url, keys);
  // The mutation goes last: archived boards would change what the read cases return.
  const cases = all.filter((c) => !config.cases || config.cases.includes(c.id)).sort((x, y) => Number(x.kind === 'mutation') - Number(y.kind === 'mutation'));
  const results: CaseResult[] = [];
  const own = new OwnProcesses(config.adminUrl, database.name, () => [gateway.pid, floor.pid]);
  for (const entry of cases) results.push(await runCase(entry, gateway, floor, own));
  const invariance = await statementInvariance(gateway, keys);
  await gateway.stop();
  await floor.stop();

  const text = renderResults({
    config,
    date: new Date(),
    serverVersion: database.serverVersion,
    dataset,
    results,
    gatewayPeakRss: gateway.peakRss(),
    invariance,
    auth: keys.note,
  });
  console.log(`\n${text}\n`);
  if (config.output) {
    writeResults(config.output, text);
    log(`results written to ${config.output}`);
  }
}

try {
  await main();
} catch (error) {
  console.error('[bench] failed:', error);
  process.exitCode = 1;
} finally {
  await cleanup();
}
// Prisma's and pg's pools in this process are closed; exit even if a stray timer remains.
process.exit();
