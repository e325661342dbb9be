import { timedGraphQL, timedRest, type Answered } from './faults.js';

// A mixed load of clients that create boards and read them back through gateways, every request
// timed and kept, so that a run can be cut into phases (healthy, primary lost, promoted, recovered)
// and each phase told apart: requests per second, statuses, the longest wait, the writes lost.

export interface Sent extends Answered {
  kind: 'write' | 'read';
  /** When it was sent (Date.now()). */
  at: number;
  /** The board a write created (acknowledged), or a read asked for. */
  board?: number;
  /** A read of an acknowledged board that answered without it. */
  missing?: boolean;
}

export interface Target {
  url: string;
  key: string;
}

const createBoard = 'mutation($name: String!) { createWhiteboard(input: { name: $name }) { whiteboard { rowId } } }';
const boardById = 'query($id: Int!) { whiteboard(rowId: $id) { rowId name } }';

/** Clients that write and read through `targets` in turn until `stop`, each waiting for its answer before the next. */
export class MixedLoad {
  readonly sent: Sent[] = [];
  /** Boards whose creation was acknowledged, in order. */
  readonly acknowledged: number[] = [];
  private running = true;
  private readonly clients: Promise<void>[] = [];
  private count = 0;

  constructor(
    private readonly targets: Target[],
    { writers, readers }: { writers: number; readers: number },
  ) {
    for (let i = 0; i < writers; i++) this.clients.push(this.loop(i, () => this.write(i)));
    for (let i = 0; i < readers; i++) this.clients.push(this.loop(i + writers, () => this.read(i)));
  }

  async stop(): Promise<Sent[]> {
    this.running = false;
    await Promise.all(this.clients);
    return this.sent;
  }

  private async loop(client: number, send: () => Promise<void>): Promise<void> {
    // Spread over the first 50 ms, so the clients do not move in step.
    await new Promise((resolve) => setTimeout(resolve, client * 7));
    while (this.running) await send();
  }

  private target(client: number): Target {
    return this.targets[(client + this.count) % this.targets.length];
  }

  private async write(client: number): Promise<void> {
    const n = this.count++;
    const { url, key } = this.target(client);
    const name = `Load ${n}`;
    const at = Date.now();
    const answer =
      n % 2
        ? await timedRest(url, key, 'POST', '/api/whiteboard/v1/', { name })
        : await timedGraphQL(url, key, createBoard, { name });
    const board = answer.body?.data?.createWhiteboard?.whiteboard?.rowId ?? answer.body?.id;
    const acknowledged = (answer.status === 200 || answer.status === 201) && typeof board === 'number';
    if (acknowledged) this.acknowledged.push(board);
    this.sent.push({ ...answer, kind: 'write', at, board: acknowledged ? board : undefined });
  }

  private async read(client: number): Promise<void> {
    const n = this.count++;
    const { url, key } = this.target(client);
    // The newest acknowledged board, or one a little older: a client reads what it was told exists.
    const board = this.acknowledged[this.acknowledged.length - 1 - (n % 5)];
    const at = Date.now();
    if (board === undefined) {
      this.sent.push({ ...(await timedRest(url, key, 'GET', '/api/whiteboard/v1/')), kind: 'read', at });
      return;
    }
    const answer =
      n % 2
        ? await timedRest(url, key, 'GET', `/api/whiteboard/v1/${board}/`)
        : await timedGraphQL(url, key, boardById, { id: board });
    const found = answer.body?.data ? answer.body.data.whiteboard !== null : answer.body?.id === board;
    // Not found (404, or null) is a read that missed an acknowledged write.
    const missing = (answer.status === 200 && !found) || answer.status === 404;
    this.sent.push({ ...answer, kind: 'read', at, board, missing });
  }
}

export interface PhaseFigures {
  phase: string;
  seconds: number;
  requestsPerSecond: number;
  /** Status -> count, writes and reads apart. */
  writes: Record<string, number>;
  reads: Record<string, number>;
  /** Share of reads answered 200. */
  readsAnswered: number;
  longestMs: number;
  /** Reads that answered without a board whose creation had been acknowledged before they were sent. */
  missingReads: number;
}

const tally = (sent: Sent[]) =>
  sent.reduce<Record<string, number>>((counts, each) => {
    counts[each.status] = (counts[each.status] ?? 0) + 1;
    return counts;
  }, {});

/** The figures of the requests sent within each phase, `[name, from, to]` in Date.now() time. */
export function phases(sent: Sent[], bounds: [string, number, number][]): PhaseFigures[] {
  return bounds.map(([phase, from, to]) => {
    const within = sent.filter((each) => each.at >= from && each.at < to);
    const reads = within.filter((each) => each.kind === 'read');
    const seconds = (to - from) / 1000;
    return {
      phase,
      seconds: Math.round(seconds * 10) / 10,
      requestsPerSecond: Math.round(within.length / seconds),
      writes: tally(within.filter((each) => each.kind === 'write')),
      reads: tally(reads),
      readsAnswered: reads.length ? reads.filter((each) => each.status === 200).length / reads.length : 1,
      longestMs: Math.round(Math.max(0, ...within.map((each) => each.ms))),
      missingReads: reads.filter((each) => each.missing).length,
    };
  });
}

/** The acknowledged boards that `present` (the rows the new primary holds) lacks. */
export function lostWrites(acknowledged: number[], present: Set<number>): number[] {
  return acknowledged.filter((board) => !present.has(board));
}

/** A phase table, one line per phase, for a test's output or a bench's report. */
export function phaseTable(figures: PhaseFigures[]): string {
  const statuses = (counts: Record<string, number>) =>
    Object.entries(counts)
      .map(([status, count]) => `${status}x${count}`)
      .join(' ') || '-';
  const rows = figures.map(
    (each) =>
      `| ${each.phase} | ${each.seconds} | ${each.requestsPerSecond} | ${statuses(each.writes)} | ${statuses(each.reads)} | ${Math.round(each.readsAnswered * 100)}% | ${each.longestMs} | ${each.missingReads} |`,
  );
  return [
    '| phase | s | req/s | writes | reads | reads 200 | longest ms | reads missing a write |',
    '|---|---:|---:|---|---|---:|---:|---:|',
    ...rows,
  ].join('\n');
}
