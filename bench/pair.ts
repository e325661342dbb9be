/**
 * `npm run bench:pair -- <other checkout>`: a paired A/B of two builds of the gateway. Both run at
 * once on one bench database and take the same load at the same time, at one fixed rate below the
 * machine's capacity, so that whatever else the machine does falls on both alike and neither batches
 * more requests per turn of its event loop; the figure is each build's Node CPU per request, and
 * their ratio per round. BENCHMARKS.md gives its noise (an A/A run).
 */
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { buildCases } from './cases.js';
import { cleanup, cleanupOnSignals } from './cleanup.js';
import { loadBenchConfig } from './config.js';
import { cpuMsOf } from './cpu.js';
import { createBenchDatabase } from './database.js';
import { loadDataset, size } from './dataset.js';
import { issueKeys } from './keys.js';
import { runLoad, type LoadResult, type LoadSource } from './load.js';
import { median } from './report.js';
import type { Case } from './case.js';
import { gatewayRuntime, nodeVersion } from './peer-setup.js';
import { startScript, startServer, type ChildServer } from './servers.js';
import { openDatabase } from '../src/db/index.js';
import { commandLine } from '../src/cli.js';

const { positionals } = commandLine(
  `
usage: npm run bench:pair -- <other checkout>

Runs this checkout's gateway (B) and the one at <other checkout> (A, with its own node_modules) side by
side on one generated data set, loads both at the same time, and prints each one's Node CPU per request
and B/A per round. Settings: BENCH_PAIR_RATE (500 requests a second to each), BENCH_CASES (h,k),
BENCH_ROUNDS (5), BENCH_DURATION (10 s), BENCH_WARMUP (3 s), BENCH_CONNECTIONS (32, half to each),
DATABASE_URL, DATABASE_POOL_SIZE (10), BENCH_GATEWAY_NODE (24, 22 or path) as for npm run bench.
`,
  { allowPositionals: true },
);

const [other] = positionals;
if (!other || positionals.length > 1) {
  console.error('usage: npm run bench:pair -- <other checkout>');
  process.exit(2);
}
const config = loadBenchConfig();
const cases = config.cases ?? ['h', 'k'];
const rounds = process.env.BENCH_ROUNDS ? config.rounds : 5;
const rate = Number(process.env.BENCH_PAIR_RATE || 500);
if (!(rate > 0)) {
  console.error(`BENCH_PAIR_RATE must be a positive number, got "${process.env.BENCH_PAIR_RATE}"`);
  process.exit(2);
}
const log = (message: string) => console.log(`[pair] ${message}`);
/** Both builds run on the bench's runtime for the gateway (Node 24 unless BENCH_GATEWAY_NODE says otherwise). */
const runtime = gatewayRuntime(config.gatewayNode, log);

/** Builds a checkout and starts its gateway as its own `npm start` would. */
function startGateway(name: string, dir: string, databaseUrl: string): Promise<ChildServer> {
  execFileSync('npm', ['run', '--silent', 'build'], { cwd: dir, stdio: 'inherit' });
  return startServer({
    name,
    command: ['sh', '-c', startScript(dir)],
    cwd: dir,
    env: {
      ...runtime.env,
      DATABASE_URL: databaseUrl,
      DATABASE_POOL_SIZE: String(config.poolSize),
      NODE_ENV: 'production',
    },
    readyPath: '/ready',
  });
}

/** A's requests take the even numbers and B's the odd ones: a write case never has both change one row. */
const sourceOf = (entry: Case, parity: 0 | 1): LoadSource => ({
  request: (i) => entry.gateway(2 * i + parity),
  constant: entry.constant,
  run: entry.run ?? 1,
});

/** Loads both at once for `seconds` at `rate` each; each one's req/s, errors and Node CPU ms per answered request. */
async function together(entry: Case, servers: ChildServer[], seconds: number) {
  const before = cpuMsOf(servers.map((server) => server.pid));
  const loads: LoadResult[] = await Promise.all(
    servers.map((server, parity) =>
      runLoad(server.url, sourceOf(entry, parity as 0 | 1), Math.max(1, config.connections / 2), seconds, rate),
    ),
  );
  const after = cpuMsOf(servers.map((server) => server.pid));
  return servers.map((server, i) => ({
    rps: loads[i].rps,
    errors: loads[i].non2xx + loads[i].socketErrors,
    cpuMs: (after.get(server.pid)! - before.get(server.pid)!) / Math.max(1, loads[i].requests),
  }));
}

async function main(): Promise<void> {
  cleanupOnSignals();
  const database = await createBenchDatabase(config.adminUrl);
  await (await openDatabase({ databaseUrl: database.url, poolSize: 2 })).close(); // migrates it
  const dataset = await loadDataset(database.url);
  log(`data set loaded in ${dataset.seconds.toFixed(1)} s`);
  const keys = await issueKeys(database.url, size.organizations);
  const servers = [
    await startGateway('A', resolve(other), database.url),
    await startGateway('B', process.cwd(), database.url),
  ];
  const all = await buildCases(servers[1].url, keys);
  console.log(`\nA: ${resolve(other)}\nB: ${process.cwd()}\nboth on Node.js ${nodeVersion(runtime.env)}\n`);
  console.log('| case | round | A req/s | B req/s | A Node CPU ms/req | B Node CPU ms/req | B / A |');
  console.log('|---|---:|---:|---:|---:|---:|---:|');
  for (const id of cases) {
    const entry = all.find((candidate) => candidate.id === id);
    if (!entry || entry.skip) throw new Error(`no case ${id} to run`);
    const ratios: number[] = [];
    for (let round = 1; round <= rounds; round++) {
      await entry.prepare?.();
      if (config.warmup) await together(entry, servers, config.warmup);
      const [a, b] = await together(entry, servers, config.duration);
      if (a.errors || b.errors) throw new Error(`case ${id}: ${a.errors} errors from A, ${b.errors} from B`);
      ratios.push(b.cpuMs / a.cpuMs);
      console.log(
        `| ${id} | ${round} | ${a.rps.toFixed(0)} | ${b.rps.toFixed(0)} | ${a.cpuMs.toFixed(3)} | ${b.cpuMs.toFixed(3)} | ${ratios.at(-1)!.toFixed(3)} |`,
      );
    }
    console.log(`| ${id} | median | | | | | **${median(ratios).toFixed(3)}** |`);
  }
}

main()
  .catch((error) => {
    console.error(error);
    process.exitCode = 1;
  })
  .finally(() => cleanup());
