import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';

/**
 * How much of the machine went to processes outside the measurement. On a shared machine (tests,
 * type checks, other databases) a figure taken while something else ran is not a figure of the
 * gateway; the bench waits for quiet and reports what it could not avoid.
 * Everything is in kernel clock ticks from /proc, so no tick rate needs to be known.
 */

function machineTicks(): { busy: number; total: number } {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  const total = fields.reduce((sum, n) => sum + n, 0);
  const idle = fields[3] + (fields[4] ?? 0); // idle + iowait
  return { busy: total - idle, total };
}

function processTicks(pid: number): number {
  try {
    // The command name may hold spaces; the fields after its closing parenthesis are fixed.
    const after = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ').pop()!.split(' ');
    return Number(after[11]) + Number(after[12]); // utime + stime
  } catch {
    return 0;
  }
}

/** The processes that belong to the measurement: the servers, this process, and PostgreSQL's backends of the bench database. */
export class OwnProcesses {
  constructor(
    private readonly adminUrl: string,
    private readonly database: string,
    private readonly pids: () => number[],
  ) {}

  /** PostgreSQL's server processes for the bench database's connections. */
  async backends(): Promise<number[]> {
    const client = new pg.Client({ connectionString: this.adminUrl });
    await client.connect();
    try {
      const { rows } = await client.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = $1', [
        this.database,
      ]);
      return rows.map((row) => row.pid);
    } finally {
      await client.end();
    }
  }

  async list(): Promise<number[]> {
    return [process.pid, ...this.pids(), ...(await this.backends())];
  }
}

const msPerTick = 1000 / Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim() || 100);

/**
 * CPU time the server process and the database's backends spend, divided by the requests served:
 * where a request's cost lies (JavaScript or SQL), and a figure that other load disturbs far less
 * than requests per second do.
 */
export async function watchCost(
  own: OwnProcesses,
  serverPid: number,
): Promise<(requests: number) => Promise<{ serverMs: number; databaseMs: number }>> {
  const server = processTicks(serverPid);
  const startBackends = await own.backends();
  const before = new Map(startBackends.map((pid) => [pid, processTicks(pid)]));
  return async (requests) => {
    const serverTicks = processTicks(serverPid) - server;
    let databaseTicks = 0;
    for (const pid of new Set([...startBackends, ...(await own.backends())]))
      databaseTicks += Math.max(0, processTicks(pid) - (before.get(pid) ?? 0));
    const per = (ticks: number) => (ticks * msPerTick) / Math.max(1, requests);
    return { serverMs: per(serverTicks), databaseMs: per(databaseTicks) };
  };
}

/** CPU milliseconds each process has used so far (0 for one that is gone). */
export function cpuMsOf(pids: Iterable<number>): Map<number, number> {
  return new Map([...pids].map((pid) => [pid, processTicks(pid) * msPerTick]));
}

export interface CpuWatch {
  /** Share of the whole machine (0..1) used by other processes since the watch started. */
  stop(): Promise<number>;
}

export async function watchCpu(own: OwnProcesses): Promise<CpuWatch> {
  const start = machineTicks();
  const startPids = await own.list();
  const before = new Map(startPids.map((pid) => [pid, processTicks(pid)]));
  return {
    async stop() {
      const end = machineTicks();
      // Backends that appeared meanwhile (the pool grew) belong to the run from their first tick.
      const pids = new Set([...startPids, ...(await own.list())]);
      let ours = 0;
      for (const pid of pids) ours += Math.max(0, processTicks(pid) - (before.get(pid) ?? 0));
      const total = end.total - start.total;
      return total > 0 ? Math.max(0, end.busy - start.busy - ours) / total : 0;
    },
  };
}

/**
 * Waits (at most `limitMs`) until other processes leave the machine nearly idle for a second;
 * returns their share of the machine at the last look.
 */
export async function waitForQuiet(own: OwnProcesses, limitMs = 60_000, threshold = 0.05): Promise<number> {
  const deadline = Date.now() + limitMs;
  let share = 1;
  while (Date.now() < deadline) {
    const watch = await watchCpu(own);
    await sleep(1_000);
    share = await watch.stop();
    if (share < threshold) break;
  }
  return share;
}
