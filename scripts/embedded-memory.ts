import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { buildClientSchema, getIntrospectionQuery } from 'graphql';
import { commandLine } from '../src/cli.js';
import { EXAMPLE_QUERY } from '../src/http/graphiql.js';
import { mutationCalls, openApiOperations, requestFor, sendRequest } from '../test/helpers/fuzz-requests.js';
import { buildServer, startServer } from '../test/helpers/processes.js';
import { postGraphQL } from '../test/helpers/graphql.js';

commandLine(`
usage: npm run memory:embedded     (on a shared machine: flock /tmp/gateway-bench.lock npm run memory:embedded)

The embedded default's memory: builds the server, starts it as npm start does on a new temporary DATA_DIR
(so it creates the database, migrates it and loads the demo data, as on a fresh clone), and reports
- start to ready: from starting the server to /ready answering 200 (the build before it apart);
- its resident memory (VmRSS) once idle, and its peak (VmHWM) during the start;
- one request at a time, GraphiQL's example query (a nested read of the demo boards): its median
  latency and the server's CPU per request, over MEMORY_READS (200) after 20 unmeasured;
- its peak (VmHWM, reset once idle) while it answers the fuzz suite's requests (test/fuzz.test.ts):
  every OpenAPI operation and every GraphQL mutation with generated input, the demo owner's key,
  reads first and deletes last in each round, until MEMORY_REQUESTS were answered.
Settings: MEMORY_REQUESTS (3000), MEMORY_CONNECTIONS (4, requests in flight), MEMORY_IDLE_SECONDS (10,
the wait before the idle figure), MEMORY_SEED (1, the generated input).
`);

const requests = Number(process.env.MEMORY_REQUESTS ?? 3000);
const connections = Number(process.env.MEMORY_CONNECTIONS ?? 4);
const idleSeconds = Number(process.env.MEMORY_IDLE_SECONDS ?? 10);
const seed = Number(process.env.MEMORY_SEED ?? 1);
const reads = Number(process.env.MEMORY_READS ?? 200);
const runsPerOperation = 4;
const demoKey = 'embedded-memory-demo-owner';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const megabytes = (kilobytes: number) => Math.round(kilobytes / 1024);

/** A line of /proc/<pid>/status in kB (VmRSS: resident now, VmHWM: the peak). */
function status(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!match) throw new Error(`no ${field} for process ${pid}`);
  return Number(match[1]);
}

/** The CPU time the process and its ended children have used, in ms (/proc/<pid>/stat, in clock ticks of 10 ms). */
function cpuMs(pid: number): number {
  const [utime, stime, cutime, cstime] = readFileSync(`/proc/${pid}/stat`, 'utf8')
    .split(') ')[1]
    .split(' ')
    .slice(11, 15);
  return (Number(utime) + Number(stime) + Number(cutime) + Number(cstime)) * 10;
}

/** GraphiQL's example query, one at a time: the median latency in ms and the server's CPU ms per request. */
async function nestedRead(url: string, pid: number): Promise<{ median: number; cpu: number }> {
  const read = async () => {
    const answer = await postGraphQL(url, EXAMPLE_QUERY, { key: demoKey });
    if (answer.status !== 200 || answer.errors) throw new Error(`the nested read failed: ${JSON.stringify(answer)}`);
  };
  for (let i = 0; i < 20; i++) await read();
  const cpu = cpuMs(pid);
  const latencies: number[] = [];
  for (let i = 0; i < reads; i++) {
    const started = performance.now();
    await read();
    latencies.push(performance.now() - started);
  }
  latencies.sort((a, b) => a - b);
  return { median: latencies[Math.floor(reads / 2)], cpu: (cpuMs(pid) - cpu) / reads };
}

async function waitReady(url: string): Promise<void> {
  for (;;) {
    const response = await fetch(`${url}/ready`).catch(() => undefined);
    if (response?.status === 200) return;
    await sleep(20);
  }
}

/** The fuzz suite's requests, round after round (each with new input), as functions that send one. */
async function* fuzzRequests(url: string): AsyncGenerator<() => Promise<number>> {
  const { operations, components } = await openApiOperations(url);
  const introspection = await postGraphQL(url, getIntrospectionQuery(), { key: demoKey });
  const mutations = mutationCalls(buildClientSchema(introspection.data as never));
  const order = (method: string) => ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].indexOf(method);
  const rest = [...operations].sort((a, b) => order(a.method) - order(b.method));
  const sample = <T>(arbitrary: fc.Arbitrary<T>, round: number, index: number) =>
    fc.sample(arbitrary, { numRuns: runsPerOperation, seed: seed + round * 10_000 + index });
  for (let round = 0; ; round++) {
    for (const [index, operation] of rest.entries())
      for (const request of sample(requestFor(operation, components), round, index))
        yield async () => (await sendRequest(url, operation, request, demoKey)).status;
    for (const [index, { document, variables }] of mutations.entries())
      for (const values of sample(variables, round, 1_000 + index))
        yield async () => (await postGraphQL(url, document, { variables: values, key: demoKey })).status;
  }
}

/** Sends `count` fuzz requests, `connections` at a time; answers the count of each status class. */
async function drive(url: string, count: number): Promise<Record<string, number>> {
  const statuses: Record<string, number> = {};
  const source = fuzzRequests(url);
  let sent = 0;
  const worker = async () => {
    while (sent < count) {
      sent++;
      const { value: send } = await source.next();
      const status = await (send as () => Promise<number>)().catch(() => 0);
      const kind = status ? `${String(status)[0]}xx` : 'failed';
      statuses[kind] = (statuses[kind] ?? 0) + 1;
    }
  };
  await Promise.all(Array.from({ length: connections }, worker));
  return statuses;
}

const dataDir = mkdtempSync(join(tmpdir(), 'gateway-memory-'));
let buildMs = performance.now();
await buildServer();
buildMs = performance.now() - buildMs;
const started = performance.now();
const server = startServer({ PORT: '0', DATA_DIR: dataDir, DEMO_API_KEY: demoKey });
const pid = server.child.pid!;
try {
  const url = await server.url;
  await waitReady(url);
  const readyMs = performance.now() - started;
  const startCpu = cpuMs(pid);
  const startPeak = status(pid, 'VmHWM');
  await sleep(idleSeconds * 1000);
  const idle = status(pid, 'VmRSS');
  const latency = await nestedRead(url, pid);
  // Resets VmHWM to the resident size now, so the next peak is the load's alone.
  writeFileSync(`/proc/${pid}/clear_refs`, '5');
  const loadStarted = performance.now();
  const loadCpu = cpuMs(pid);
  const statuses = await drive(url, requests);
  const loadSeconds = (performance.now() - loadStarted) / 1000;
  const cpuPerRequest = (cpuMs(pid) - loadCpu) / requests;
  const loadPeak = status(pid, 'VmHWM');
  const after = status(pid, 'VmRSS');
  console.log(
    `load average ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')} (this run's included)`,
  );
  console.log(
    `build ${Math.round(buildMs)} ms; start to ready ${Math.round(readyMs)} ms (demo data loaded) and ${startCpu} ms of CPU`,
  );
  console.log(`resident: ${megabytes(idle)} MB idle after ${idleSeconds} s; start peak ${megabytes(startPeak)} MB`);
  console.log(
    `nested read, one at a time: median ${latency.median.toFixed(1)} ms, ${latency.cpu.toFixed(1)} ms of server CPU a request`,
  );
  console.log(
    `under load: peak ${megabytes(loadPeak)} MB over ${requests} fuzz requests (${connections} in flight, ` +
      `${loadSeconds.toFixed(1)} s, ${cpuPerRequest.toFixed(2)} ms of server CPU a request, ${JSON.stringify(statuses)}); ` +
      `${megabytes(after)} MB after`,
  );
  if (statuses['5xx'] || statuses.failed) process.exitCode = 1;
} finally {
  server.child.kill('SIGTERM');
  await server.exit;
  rmSync(dataDir, { recursive: true, force: true });
}
