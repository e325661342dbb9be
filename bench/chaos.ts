import { commandLine } from '../src/cli.js';
import { multiHostStack, patroniStack, runFailover, type Replication, type Stack } from '../test/helpers/chaos.js';
import { phaseTable } from '../test/helpers/load.js';
import { buildServer, startGateway, type GatewayProcess } from '../test/helpers/processes.js';
import { cleanup, cleanupOnSignals, onCleanup } from './cleanup.js';
import { gatewayRuntime, nodeVersion } from './peer-setup.js';
import { runWebhookOutage } from './webhook-outage.js';

const { values } = commandLine(
  `
usage: npm run chaos -- [--scenario failover|webhook-outage] [--stack patroni|multi-host] [--replication sync|async]
                        [--outage S] [--phase S] [--writers N] [--readers N] [--down S] [--rate N]

failover (default): starts a primary and a standby of its own, two gateways (npm start on Node 24, default settings) on them, and a
mixed load of clients that create boards and read them back through both; kills the primary's
PostgreSQL, and reports per phase (healthy, primary lost, promoted, recovered): requests per second,
statuses, the longest wait, the share of reads answered, reads that missed an acknowledged write,
acknowledged writes the new primary lacks, and those that a subscriber resuming after the failover
from a cursor taken before the load is not told of, or whose webhook never came.

  --stack        patroni: Patroni (two nodes) over etcd, HAProxy routing to the leader and the
                 replicas, which promotes the standby itself (default);
                 multi-host: two servers in libpq's multi-host URLs, the standby promoted by the run
  --replication  sync (default) or async
  --outage S     seconds between the crash and the promotion, multi-host only (default 5)
  --phase S      seconds of load before the crash and after the recovery (default 5)
  --writers N, --readers N   clients of each kind (default 4 and 2)

webhook-outage: one PostgreSQL server and one gateway; a webhook endpoint answers 503 for --down S
(default 600) while boards are renamed --rate N times a second (default 10, over 4 boards), then
answers again; reports the changes made, those delivered after its return, the time until the last
one came, and the boards whose changes came out of the log's order.

Needs Debian's postgresql, patroni, etcd-server and haproxy packages (as .ci/run installs them).
`,
  {
    options: {
      scenario: { type: 'string', default: 'failover' },
      down: { type: 'string', default: '600' },
      rate: { type: 'string', default: '10' },
      stack: { type: 'string', default: 'patroni' },
      replication: { type: 'string', default: 'sync' },
      outage: { type: 'string', default: '5' },
      phase: { type: 'string', default: '5' },
      writers: { type: 'string', default: '4' },
      readers: { type: 'string', default: '2' },
    },
  },
);

function choice<T extends string>(name: string, value: string, allowed: readonly T[]): T {
  if (!allowed.includes(value as T)) {
    console.error(`--${name} must be one of ${allowed.join(', ')}, got "${value}"`);
    process.exit(2);
  }
  return value as T;
}

function count(name: string, value: string): number {
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed < 0) {
    console.error(`--${name} must be a number of at least 0, got "${value}"`);
    process.exit(2);
  }
  return parsed;
}

const scenario = choice('scenario', values.scenario, ['failover', 'webhook-outage'] as const);
cleanupOnSignals();
await buildServer();
// The gateway runs on the supported runtime, Node 24 from the npm registry, as the bench runs it.
const runtime = gatewayRuntime('24', (message) => console.error(message));

async function failover(): Promise<void> {
  const kind = choice('stack', values.stack, ['patroni', 'multi-host'] as const);
  const replication = choice<Replication>('replication', values.replication, ['sync', 'async']);
  const outageMs = kind === 'patroni' ? 0 : count('outage', values.outage) * 1000;
  const phaseMs = count('phase', values.phase) * 1000;
  const stack: Stack = kind === 'patroni' ? await patroniStack(replication) : await multiHostStack(replication);
  onCleanup('the servers', () => stack.remove());
  const env = { ...stack.env, ...runtime.env };
  const gateways: GatewayProcess[] = await Promise.all([0, 1].map(() => startGateway(env, stack.keys)));
  onCleanup('the gateways', async () => void (await Promise.all(gateways.map((gateway) => gateway.stop()))));
  const report = await runFailover(stack, gateways, {
    phaseMs,
    outageMs,
    writers: count('writers', values.writers),
    readers: count('readers', values.readers),
  });
  const longest = Math.round(Math.max(...report.sent.map((each) => each.ms)));
  console.log(`## ${stack.name}: the primary's PostgreSQL killed under a mixed load (gateways on Node.js ${nodeVersion(runtime.env)})

${phaseTable(report.figures)}

- ${kind === 'patroni' ? 'HAProxy routed writes to the new leader' : 'the standby was promoted'} ${report.promotedAfterCrashMs} ms after the crash${kind === 'patroni' ? '' : ' (by the run)'}
- first acknowledged write through each gateway after that: ${report.writesAfterPromotionMs.join(', ')} ms
- the longest wait of any request: ${longest} ms
- acknowledged writes: ${report.acknowledged.length}; lost (not on the new primary): ${report.lost.length}
- missing from a stream of the organization's changes resumed after the failover with a cursor taken before the load: ${report.missingFromStream.length}
- not delivered to a webhook endpoint made before the load (once none came for 60 s): ${report.undelivered.length}`);
}

async function webhookOutage(): Promise<void> {
  const downMs = count('down', values.down) * 1000;
  const report = await runWebhookOutage({ downMs, rate: count('rate', values.rate), boards: 4, env: runtime.env });
  console.log(`## a webhook endpoint down for ${downMs / 1000} s under ${values.rate} changes a second (gateway on Node.js ${nodeVersion(runtime.env)})

- changes made while it was down: ${report.changes}; delivered after it came back: ${report.delivered}
- requests it took in all (refused attempts and retries included): ${report.requests}
- from its return to the last change's delivery: ${report.caughtUpMs} ms
- boards whose changes came out of the log's order: ${report.outOfOrder.length}`);
}

await (scenario === 'failover' ? failover() : webhookOutage());
await cleanup();
process.exit(0);
