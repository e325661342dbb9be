import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import type { Prisma } from '../../src/db/index.js';
import type { ChangeFeed, PageOf, WebhookChange } from '../../src/webhooks/feed.js';
import { SecretBox } from '../../src/webhooks/secret-box.js';
import { newSigningSecret } from '../../src/webhooks/signature.js';

/** A key for WEBHOOK_ENCRYPTION_KEY (32 bytes, base64). */
export const TEST_ENCRYPTION_KEY = Buffer.alloc(32, 7).toString('base64');

/** The settings of a gateway whose webhooks reach the tests' receivers on loopback ports, polled often. */
export const webhookEnv = {
  WEBHOOK_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
  WEBHOOK_ALLOW_PRIVATE: 'true',
  WEBHOOK_POLL_MS: '10',
} as const;

/** A request a receiver took: verified with the `standardwebhooks` package, not the gateway's code. */
export interface Received {
  messageId: string;
  timestamp: number;
  signatures: string;
  body: any;
  verified: boolean;
  /** What verification said, when it failed. */
  refusal?: string;
  at: number;
}

/** What a receiver answers one request: a status, after a while, with headers and a body. */
export interface Answer {
  status: number;
  delayMs?: number;
  headers?: Record<string, string>;
  body?: string;
}

/**
 * A webhook receiver on a loopback port that verifies each request with the secret it is given, as
 * an integration would: a signature that does not verify is recorded as such (and answered 400).
 */
export class Receiver {
  secret: string | undefined;
  readonly received: Received[] = [];
  /** How the next request is answered; 204 by default. */
  answer: (request: Received) => Answer = () => ({ status: 204 });
  inFlight = 0;
  maxInFlight = 0;

  private constructor(
    private readonly server: ReturnType<typeof createServer>,
    readonly url: string,
  ) {}

  static async start(): Promise<Receiver> {
    let receiver: Receiver | undefined;
    const server = createServer((request, response) => void receiver!.take(request, response));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    receiver = new Receiver(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`);
    return receiver;
  }

  private async take(request: IncomingMessage, response: ServerResponse): Promise<void> {
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const headers = request.headers as Record<string, string>;
    const received: Received = {
      messageId: headers['webhook-id'],
      timestamp: Number(headers['webhook-timestamp']),
      signatures: headers['webhook-signature'],
      body: JSON.parse(text),
      verified: false,
      at: Date.now(),
    };
    try {
      new Webhook(this.secret ?? '').verify(text, headers);
      received.verified = true;
    } catch (error) {
      received.refusal = (error as Error).message;
    }
    this.received.push(received);
    const answer = received.verified ? this.answer(received) : { status: 400, body: 'bad signature' };
    if (answer.delayMs) await new Promise((resolve) => setTimeout(resolve, answer.delayMs));
    this.inFlight--;
    response.writeHead(answer.status, answer.headers).end(answer.body);
  }

  /** Resolves once `count` requests have come, or fails after `timeoutMs`. */
  async waitFor(count: number, timeoutMs = 10_000): Promise<Received[]> {
    const until = Date.now() + timeoutMs;
    while (this.received.length < count) {
      if (Date.now() > until) throw new Error(`the receiver got ${this.received.length} of ${count} requests`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    return this.received;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** A change of one organization, as the log would tell it, without its cursor. */
export type ChangeOf = Omit<WebhookChange, 'cursor' | 'committedAt' | 'actor'> & Partial<Pick<WebhookChange, 'actor'>>;

/**
 * A change log kept in memory, for the dispatcher's tests before the change log itself feeds it:
 * cursors are zero-padded sequence numbers, so they order as text.
 */
export class MemoryFeed implements ChangeFeed {
  private readonly changes: WebhookChange[] = [];

  private cursorAt = (position: number) => String(position).padStart(12, '0');

  append(...changes: ChangeOf[]): WebhookChange[] {
    return changes.map((change) => {
      const logged = {
        actor: { userId: 1, credential: 'API_KEY' },
        ...change,
        cursor: this.cursorAt(this.changes.length + 1),
        committedAt: new Date(),
      };
      this.changes.push(logged);
      return logged;
    });
  }

  async head(): Promise<string> {
    return this.cursorAt(this.changes.length);
  }

  async read(pages: readonly PageOf[], limit: number) {
    return Promise.all(
      pages.map(async ({ organizationId, after }) => {
        const later = this.changes.filter((change) => change.cursor > after);
        const page = later.filter((change) => change.organizationId === organizationId).slice(0, limit);
        // A full page ends at its last change; a short one has read everything up to now.
        const cursor = page.length === limit ? page[page.length - 1].cursor : await this.head();
        return { changes: page, cursor };
      }),
    );
  }
}

/** The models of the graph that the demo data has no rows of: webhooks, whose secrets the operator's key seals. */
export const webhookModels = ['WebhookEndpoint'] as const;

/**
 * An endpoint in each organization, with a delivery each, for the suites that walk every model's rows
 * (tenancy, row-level security): written as createWebhookEndpoint writes them.
 */
export async function addWebhookEndpoints(prisma: Prisma): Promise<void> {
  const box = new SecretBox([Buffer.from(TEST_ENCRYPTION_KEY, 'base64')]);
  for (const { id } of await prisma.organization.findMany({ orderBy: { id: 'asc' } })) {
    const endpoint = await prisma.webhookEndpoint.create({
      data: {
        organizationId: id,
        url: `https://hooks.example.com/organization/${id}`,
        eventTypes: ['*'],
        whiteboardIds: [],
        secret: box.seal(newSigningSecret(), id),
        enabled: false,
        disabledReason: 'ADMINISTRATOR',
      },
    });
    await prisma.webhookDelivery.create({
      data: { endpointId: endpoint.id, messageId: `msg_${id}`, eventType: 'whiteboard.created', lane: 0, body: '{}' },
    });
  }
}
