import type { DatabaseEngine } from '../db/engine.js';
import { decodeEvent, LIVE_CHANNEL, type LiveEvent } from './events.js';

type Listener = (event: LiveEvent) => void;

/**
 * One per gateway instance: LISTENs once on the live channel and hands every committed change to the
 * instance's subscribers; counts each key's open subscriptions against its limit.
 */
export class LiveHub {
  private readonly listeners = new Set<Listener>();
  private readonly openByKey = new Map<number, number>();
  private listening: { engine: DatabaseEngine; ready: Promise<void> } | undefined;

  constructor(
    private readonly engine: () => DatabaseEngine,
    readonly maxPerKey: number,
  ) {}

  /** Resolves once the instance is listening, so a subscription that starts after it misses nothing committed later. */
  start(): Promise<void> {
    const engine = this.engine();
    if (this.listening?.engine !== engine) {
      this.listening = { engine, ready: engine.listen(LIVE_CHANNEL, (payload) => this.deliver(payload)) };
    }
    return this.listening.ready;
  }

  /** Open subscriptions on this instance. */
  get size(): number {
    return this.listeners.size;
  }

  /** Takes one of the key's subscription slots; false when all are taken. */
  acquire(keyId: number): boolean {
    const open = this.openByKey.get(keyId) ?? 0;
    if (open >= this.maxPerKey) return false;
    this.openByKey.set(keyId, open + 1);
    return true;
  }

  release(keyId: number): void {
    const open = (this.openByKey.get(keyId) ?? 1) - 1;
    if (open > 0) this.openByKey.set(keyId, open);
    else this.openByKey.delete(keyId);
  }

  /** Calls `listener` with every event until the returned function is called. */
  onEvent(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  // A lost connection (undefined) may have dropped events; subscribers reload what they show, so nothing is replayed.
  private deliver(payload: string | undefined): void {
    const event = payload === undefined ? undefined : decodeEvent(payload);
    if (!event) return;
    for (const listener of this.listeners) listener(event);
  }
}
