import type { Notification } from 'pg';
import type { DatabaseBounds } from '../config.js';
import { GatewayPool, type GatewayClient } from './pool.js';

/** A subscription to a channel: whether it stands now (else notifications may be missed until it stands again). */
export interface Listening {
  readonly standing: boolean;
}

const RELISTEN_DELAY_MS = 1_000;
/** A connection that only listens says nothing when its server hangs: it is asked something this often. */
const PING_MS = 2_000;

type OnPayload = (payload: string | undefined) => void;

/** One channel's connection: reconnects after a loss, on the server the pool's selector names then. */
class Channel implements Listening {
  standing = false;
  private client: GatewayClient | undefined;
  private ping: NodeJS.Timeout | undefined;

  constructor(
    private readonly listeners: Listeners,
    readonly name: string,
    private readonly onPayload: OnPayload,
  ) {}

  async open(): Promise<void> {
    const client = (await this.listeners.pool.connect()) as GatewayClient;
    const lost = () => this.lost(client);
    client.on('error', lost);
    client.on('end', lost);
    client.on('notification', (message: Notification) => {
      if (message.channel === this.name) this.onPayload(message.payload);
    });
    try {
      await client.query(`LISTEN "${this.name}"`);
    } catch (error) {
      client.release(true);
      throw error;
    }
    if (this.listeners.closed) return void client.release(true);
    this.client = client;
    this.standing = true;
    // A hung server leaves the ping unanswered: the pool's watch drops the connection past its bound.
    this.ping = setInterval(() => void client.query('SELECT 1').catch(() => {}), PING_MS).unref();
  }

  close(): void {
    clearInterval(this.ping);
    this.client?.release(true);
    this.client = undefined;
    this.standing = false;
  }

  private lost(client: GatewayClient): void {
    if (this.client !== client) return;
    this.close();
    if (this.listeners.closed) return;
    this.onPayload(undefined);
    const retry = () => {
      if (this.listeners.closed) return;
      this.open().then(
        () => this.onPayload(undefined),
        () => setTimeout(retry, RELISTEN_DELAY_MS).unref(),
      );
    };
    setTimeout(retry, RELISTEN_DELAY_MS).unref();
  }
}

/** LISTEN on connections of their own (a pooled one would be handed to queries), on PostgreSQL itself. */
export class Listeners {
  readonly pool: GatewayPool;
  closed = false;
  private readonly channels = new Set<Channel>();

  constructor(url: string, bounds: DatabaseBounds) {
    // A ping is answered at once by a server that answers at all.
    const pingBounds = { ...bounds, statementTimeoutMs: bounds.connectTimeoutMs, lockTimeoutMs: 0 };
    this.pool = new GatewayPool({ url, max: 4, bounds: pingBounds, sessionTimeouts: 'none' });
  }

  /** Resolves once the channel's first connection listens; rejects when it cannot be opened. */
  async listen(name: string, onPayload: OnPayload): Promise<Listening> {
    const channel = new Channel(this, name, onPayload);
    await channel.open();
    this.channels.add(channel);
    return channel;
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const channel of this.channels) channel.close();
    await this.pool.end();
  }
}
