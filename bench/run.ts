/**
 * `npm run bench`: the gateway against a peer (PostGraphile 5) and the floor (one hand-written
 * statement per request) on a generated production-size data set in a PostgreSQL database of its
 * own. See BENCHMARKS.md.
 */
import { execFileSync } from 'node:child_process';
import { createAuditedDatabase, startAuditedPeer, type AuditedDatabase } from './audited-peer.js';
import type { Case } from './case.js';
import { buildCases } from './cases.js';
import type { HttpRequest } from './requests.js';
import { checkAnswers, freshPrincipals, sample, statementInvariance } from './checks.js';
import { cleanup, cleanupOnSignals } from './cleanup.js';
import { loadBenchConfig, pinnedCpus } from './config.js';
import { OwnProcesses, waitForQuiet, watchCost, watchCpu } from './cpu.js';
import { createBenchDatabase } from './database.js';
import { loadDataset, ownerOf, size } from './dataset.js';
import { TestProvider } from '../test/helpers/oidc-provider.js';
import { issueKeys, tokenIssuer, type KeyRing } from './keys.js';
import { measureLive, type LiveResult } from './live.js';
import { measureWebhooks, type WebhookResult } from './webhooks.js';
import { benchPostgres, executionTime, pinToCpu } from './postgres.js';
import { runLoad, type LoadSource } from './load.js';
import { gatewayRuntime, installPeer, nodeVersion, peerRuntime, startPeer } from './peer-setup.js';
import { renderResults, writeResults, type CaseResult, type Measured } from './report.js';
import { measureReplicas, renderReplicas } from './replica.js';
import { auditedCaseIds } from './small-cases.js';
import { startScript, startServer, type ChildServer } from './servers.js';
import { openDatabase } from '../src/db/index.js';
import { commandLine } from '../src/cli.js';

commandLine(`
usage: npm run bench

Measures the gateway against PostGraphile 5 and a hand-written SQL floor on a generated data set, in a
PostgreSQL cluster of its own (pg_stat_statements loaded), or a database of its own on the server of
DATABASE_URL, and writes the results table into BENCHMARKS.md. Settings: BENCH_MODE (load, sequential
or pinned), BENCH_DURATION (10 s), BENCH_WARMUP (3 s),
BENCH_CONNECTIONS (32), BENCH_ROUNDS (3), BENCH_SAMPLES (20), BENCH_CASES (a,b,...), DATABASE_POOL_SIZE (10),
BENCH_GATEWAY_NODE (24, 22 or path), BENCH_AUDITED_USER (request or connection), BENCH_PROFILE_DIR, BENCH_ROW_LEVEL_SECURITY, BENCH_OUTPUT (- prints only). BENCHMARKS.md
describes them.
`);

const config = loadBenchConfig();
const log = (message: string) => console.log(`[bench] ${message}`);

/** Warm-up, the sequential sample, then the measured run, against one server; `beforeSample` readies it for the sample. */
async function measure(
  server: ChildServer,
  source: LoadSource,
  own: OwnProcesses,
  execution: ReturnType<typeof executionTime> | undefined,
  gateway?: { beforeSample: () => Promise<void> },
): Promise<Measured> {
  await waitForQuiet(own);
  const cpu = await watchCpu(own);
  server.resetPeak();
  if (config.warmup > 0) {
    await runLoad(server.url, source, config.connections, config.warmup);
    await server.settle();
  }
  await gateway?.beforeSample();
  // An even count, so the mutation case leaves every board as it found it.
  const count = config.samples + (config.samples % 2);
  const probe = await sample(
    server,
    Array.from({ length: count }, (_, i) => source.request(i)),
  );
  const before = await server.statements();
  await execution?.reset();
  const cost = await watchCost(own, server.pid);
  const load = await runLoad(server.url, source, config.connections, config.duration);
  await server.settle();
  // Every request sent was served to the end, even those the load generator stopped waiting for.
  const underLoad = ((await server.statements()) - before) / Math.max(1, load.sent);
  const cpuPerRequest = await cost(load.sent);
  const executionMs = execution && (await execution.spentMs()) / Math.max(1, load.sent);
  const otherCpu = await cpu.stop();
  // In the sequential mode the measured run is already one connection's.
  const alone =
    gateway && config.mode !== 'sequential' ? await runLoad(server.url, source, 1, config.duration) : undefined;
  return {
    load,
    alone,
    statements: { min: Math.min(...probe.statements), max: Math.max(...probe.statements), underLoad },
    sampleFailed: probe.failed,
    sampled: count,
    messages: probe.messages,
    peakRss: server.windowPeakRss(),
    cpuPerRequest,
    executionMs,
    otherCpu,
  };
}

/** The audited peer, on a database of its own: its backends and its statements are counted there. */
interface Audited {
  server: ChildServer;
  database: AuditedDatabase;
  own: OwnProcesses;
  execution: ReturnType<typeof executionTime> | undefined;
}

interface Servers {
  gateway: ChildServer;
  peer: ChildServer;
  floor: ChildServer;
  audited?: Audited;
  keys: KeyRing;
}

/**
 * One case: the answer check, then rounds of gateway, peer, audited peer and floor in turn, so that
 * whatever else the machine does falls on each alike; the report takes the median of the rounds.
 */
async function runCase(
  entry: Case,
  servers: Servers,
  own: OwnProcesses,
  execution: ReturnType<typeof executionTime> | undefined,
): Promise<CaseResult> {
  const result: CaseResult = {
    case: entry,
    gateway: [],
    peer: [],
    audited: [],
    floor: [],
    checked: [],
    notes: [...entry.notes],
  };
  if (entry.skip) {
    log(`${entry.id}. ${entry.title}: skipped - ${entry.skip}`);
    result.notes.push(`skipped: ${entry.skip}`);
    return result;
  }
  const source = (request: (i: number) => HttpRequest, run = 1): LoadSource => ({
    request,
    constant: entry.constant,
    run,
  });
  const audited = entry.peer && auditedCaseIds.includes(entry.id) ? servers.audited : undefined;
  const others = [
    ...(entry.floor ? [{ server: servers.floor, request: entry.floor, sameJson: true }] : []),
    ...(entry.peer ? [{ server: servers.peer, request: entry.peer, sameJson: false }] : []),
    ...(audited && entry.peer ? [{ server: audited.server, request: entry.peer, sameJson: false }] : []),
  ];
  const entriesBefore = await audited?.database.entries();
  await entry.prepare?.();
  if (others.length) {
    const check = await checkAnswers(
      { server: servers.gateway, request: entry.gateway },
      others,
      config.samples,
      entry.ignore,
    );
    result.checked = check.checked;
    result.notes.push(...check.notes);
    for (const note of check.notes) log(`${entry.id}. ${note}`);
  }
  if (audited) {
    // The check renamed config.samples boards on the audited peer: its trigger must have logged each.
    const logged = (await audited.database.entries()) - entriesBefore!;
    const note = `audited peer: its trigger wrote ${logged} change log entries for the ${config.samples} renames of the answer check`;
    result.notes.push(logged === config.samples ? note : `**${note}**`);
    log(`${entry.id}. ${note}`);
  }
  for (let round = 1; round <= config.rounds; round++) {
    log(
      `${entry.id}. ${entry.title}: round ${round}, gateway${entry.peer ? ', peer' : ''}${audited ? ', audited peer' : ''}${entry.floor ? ', floor' : ''}`,
    );
    const beforeSample = () => freshPrincipals(servers.gateway, servers.keys);
    await entry.prepare?.();
    result.gateway.push(
      await measure(servers.gateway, source(entry.gateway, entry.run), own, execution, { beforeSample }),
    );
    if (entry.peer) result.peer.push(await measure(servers.peer, source(entry.peer), own, execution));
    if (audited && entry.peer)
      result.audited.push(await measure(audited.server, source(entry.peer), audited.own, audited.execution));
    if (entry.floor) result.floor.push(await measure(servers.floor, source(entry.floor), own, execution));
  }
  const runs = Object.entries({
    gateway: result.gateway,
    peer: result.peer,
    'audited peer': result.audited,
    floor: result.floor,
  }).filter(([, list]) => list.length);
  for (const [name, list] of runs) {
    const messages = [...new Set(list.flatMap((run) => run.messages))].slice(0, 3);
    if (messages.length) result.notes.push(`${name}: sampled answers failed: ${messages.join(' | ')}`);
  }
  log(
    `${entry.id}. req/s ${runs.map(([name, list]) => `${name} ${list.map((run) => run.load.rps.toFixed(0)).join(', ')}`).join('; ')}`,
  );
  return result;
}

/** The replica case, on servers of its own; its results go to a section of their own. */
async function replicaCase(): Promise<void> {
  const text = renderReplicas(config, await measureReplicas(config, log));
  console.log(`\n${text}\n`);
  if (config.output) {
    writeResults(config.output, text, 'replica');
    log(`replica results written to ${config.output}`);
  }
}

async function main(): Promise<void> {
  cleanupOnSignals();
  // Nothing may run unbounded: a generous ceiling over the whole run, in case a server stops answering.
  const budget =
    600 +
    // Nineteen request cases: a, a2, a3, b-m, p, q, t, v; the audited peer's two of them.
    19 * (2 * config.rounds + 1) * (config.warmup + 2 * config.duration + 60) +
    2 * config.rounds * (config.warmup + config.duration + 60) +
    // The replica case: two cases on five topologies per round, and two write loads.
    (10 * config.rounds + 2) * (config.warmup + config.duration + 65);
  setTimeout(() => {
    console.error(`[bench] still running after ${budget} s: giving up`);
    void cleanup().finally(() => process.exit(1));
  }, budget * 1000).unref();

  const selected = (id: string) => !config.cases || config.cases.includes(id);
  if (config.cases?.every((id) => id === 'replica')) return replicaCase();
  // Only the request cases need the peer and the floor.
  const requestCases = !config.cases || config.cases.some((id) => !['live', 'webhooks', 'replica'].includes(id));
  if (requestCases) installPeer(log);
  const pinned = config.mode === 'pinned';
  const postgres = await benchPostgres(
    config.ownServer ? undefined : config.adminUrl,
    pinned ? pinnedCpus.database : undefined,
  );
  // The load generator shares the servers' CPU, so PostgreSQL has its own to itself.
  if (pinned) await pinToCpu(process.pid, pinnedCpus.servers);
  const database = await createBenchDatabase(
    postgres.adminUrl,
    config.rowLevelSecurity ? 'bench_table_owner' : undefined,
  );
  log(
    `database ${database.name} (${database.serverVersion}${config.ownServer ? ", a cluster of the bench's own" : ''})`,
  );
  const execution = postgres.statementStats ? executionTime(postgres, database.name) : undefined;
  const pin = (server: ChildServer) => (pinned ? pinToCpu(server.pid, pinnedCpus.servers) : Promise.resolve());
  // With row-level security the gateway's role owns the tables (a superuser would pass every policy).
  const gatewayUrl = database.ownerUrl ?? database.url;
  await (await openDatabase({ databaseUrl: gatewayUrl, poolSize: 2 })).close(); // migrates it
  const dataset = await loadDataset(gatewayUrl);
  log(`data set loaded in ${dataset.seconds.toFixed(1)} s`);
  // Copied now, while nobody is connected to the bench database; only for the cases that use it.
  const auditedDatabase =
    requestCases && auditedCaseIds.some(selected)
      ? await createAuditedDatabase(postgres.adminUrl, database)
      : undefined;
  if (auditedDatabase) log(`database ${auditedDatabase.name}: a copy with the audit trigger, for the audited peer`);
  // A real OpenID provider on loopback signs key 0's owner in, for the bearer-token case; its token lives the whole run.
  const provider = await TestProvider.start({
    accounts: { owner: { email: `user${ownerOf(1)}@bench.example`, emailVerified: true } },
    accessTokenTtl: budget,
  });
  const keys = await issueKeys(gatewayUrl, size.organizations, provider);

  // The gateway runs as `npm start` runs it: compiled, with the start script's Node options, on Node
  // 24 from the npm registry - or Node 22, or the `node` of PATH, with BENCH_GATEWAY_NODE.
  execFileSync('npm', ['run', '--silent', 'build'], { stdio: 'inherit' });
  const env = { DATABASE_URL: database.url, DATABASE_POOL_SIZE: String(config.poolSize) };
  // The live case's subscribers share the 20 keys.
  const liveEnv = { MAX_SUBSCRIPTIONS_PER_KEY: String(config.live.subscribers) };
  const runtime = gatewayRuntime(config.gatewayNode, log);
  // The probe and the profiler come in through NODE_OPTIONS, so the start script runs unchanged.
  const nodeOptions = [
    '--import ./bench/statement-probe.mjs',
    ...(config.profileDir ? ['--import ./bench/cpu-profile.mjs'] : []),
  ];
  const gateway = await startServer({
    name: 'gateway',
    command: ['sh', '-c', startScript()],
    env: {
      ...env,
      ...tokenIssuer(provider),
      DATABASE_URL: gatewayUrl,
      ...(config.rowLevelSecurity ? { ROW_LEVEL_SECURITY: 'true' } : {}),
      ...liveEnv,
      ...runtime.env,
      NODE_ENV: 'production',
      ...(config.profileDir ? { BENCH_PROFILE_DIR: config.profileDir } : {}),
      NODE_OPTIONS: [process.env.NODE_OPTIONS ?? '', ...nodeOptions].join(' ').trim(),
    },
    readyPath: '/ready',
  });
  await pin(gateway);
  const runtimes = { gateway: `Node.js ${nodeVersion(runtime.env)}`, peer: requestCases ? peerRuntime() : undefined };
  log(`gateway ${gateway.url} (pid ${gateway.pid}, ${runtimes.gateway})`);

  const results: CaseResult[] = [];
  let peerPeakRss: number | undefined;
  if (requestCases) {
    const peer = await startPeer(env);
    // On the gateway's runtime, so that the ratio to the floor measures the gateway, not the Node.js.
    const floor = await startServer({
      name: 'floor',
      command: [runtime.node, '--import', 'tsx', 'bench/floor-server.ts'],
      env,
      readyPath: '/health',
    });
    // Key 0's owner: the gateway's renames are key 0's.
    const auditedPeer =
      auditedDatabase && (await startAuditedPeer(env, auditedDatabase, ownerOf(1), config.auditedUser));
    await Promise.all([pin(peer), pin(floor), ...(auditedPeer ? [pin(auditedPeer)] : [])]);
    log(`peer ${peer.url} (pid ${peer.pid}, ${runtimes.peer}), floor ${floor.url} (pid ${floor.pid})`);
    const all = await buildCases(gateway.url, keys, peer.url);
    // The mutation goes last: archived boards would change what the read cases return.
    const cases = all
      .filter((c) => selected(c.id))
      .sort((x, y) => Number(x.kind === 'mutation') - Number(y.kind === 'mutation'));
    const pids = () => [gateway.pid, peer.pid, floor.pid, ...(auditedPeer ? [auditedPeer.pid] : [])];
    const own = new OwnProcesses(postgres.adminUrl, database.name, pids);
    const audited = auditedPeer && {
      server: auditedPeer,
      database: auditedDatabase!,
      own: new OwnProcesses(postgres.adminUrl, auditedDatabase!.name, pids),
      execution: postgres.statementStats ? executionTime(postgres, auditedDatabase!.name) : undefined,
    };
    if (auditedPeer)
      log(`audited peer ${auditedPeer.url} (pid ${auditedPeer.pid}, its user set per ${config.auditedUser})`);
    for (const entry of cases)
      results.push(await runCase(entry, { gateway, peer, floor, audited, keys }, own, execution));
    await peer.stop();
    await auditedPeer?.stop();
    await floor.stop();
    peerPeakRss = peer.peakRss();
  }
  // Last: its renames would change what the read cases return.
  let live: LiveResult | undefined;
  if (selected('live')) {
    const { subscribers, perBoard, rate, seconds } = config.live;
    log(`live: ${subscribers} SSE subscribers, ${perBoard} per board, ${rate} renames/s for ${seconds} s`);
    live = await measureLive(gateway, keys, config.live);
    log(
      `live: delivered ${live.delivered} of ${live.expected}, p50 ${live.latency.p50.toFixed(1)} ms, p99 ${live.latency.p99.toFixed(1)} ms`,
    );
  }
  const invariance = await statementInvariance(gateway, keys);
  await gateway.stop();
  // On a gateway of its own, with webhooks on: the dispatcher's polls would weigh on every other case.
  let webhooks: WebhookResult | undefined;
  if (selected('webhooks')) {
    const { endpoints, rate, seconds } = config.webhooks;
    log(`webhooks: ${endpoints} endpoints, ${rate} renames/s for ${seconds} s`);
    webhooks = await measureWebhooks(gatewayUrl, { ...env, ...runtime.env }, keys, config.webhooks);
    log(
      `webhooks: ${webhooks.delivered} of ${webhooks.changes} first attempts, p50 ${webhooks.latency.p50.toFixed(1)} ms, p99 ${webhooks.latency.p99.toFixed(1)} ms`,
    );
  }
  await provider.close();

  const text = renderResults({
    config,
    date: new Date(),
    serverVersion: database.serverVersion,
    dataset,
    results,
    live,
    webhooks,
    gatewayPeakRss: gateway.peakRss(),
    peerPeakRss,
    runtimes,
    invariance,
    auth: keys.note,
  });
  console.log(`\n${text}\n`);
  if (config.output) {
    // The sequential and the pinned modes have sections of their own (`cost`, `pinned`).
    writeResults(
      config.output,
      text,
      config.mode === 'load' ? 'results' : config.mode === 'sequential' ? 'cost' : 'pinned',
    );
    log(`results written to ${config.output}`);
  }
  if (selected('replica')) await replicaCase();
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
