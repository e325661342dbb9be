import type { WebhookConfig } from '../config.js';
import { db } from '../db/index.js';
import { WebhookDispatcher } from './dispatcher.js';
import type { ChangeFeed } from './feed.js';
import { SecretBox } from './secret-box.js';
import type { Transact } from './store.js';

/** Webhooks as the gateway runs them: what the schema's mutations need, and the instance's dispatcher. */
export interface Webhooks {
  box: SecretBox;
  allowPrivate: boolean;
  /** The change log, where a new endpoint's cursor starts; none: endpoints follow no log. */
  feed?: ChangeFeed;
  dispatcher: WebhookDispatcher;
}

/** A transaction on the primary, its statements answering rows as arrays of column values. */
const transact: Transact = (work) =>
  db().prisma.$transaction((tx) =>
    work(async (sql, args) =>
      (await tx.$queryRawUnsafe<Record<string, unknown>[]>(sql, ...args)).map((row) => Object.values(row)),
    ),
  );

/** Starts this instance's dispatcher; `stop` stops it. */
export function startWebhooks(
  config: WebhookConfig,
  options: { feed?: ChangeFeed; retentionDays?: number } = {},
): { webhooks: Webhooks; stop(): Promise<void> } {
  const box = new SecretBox(config.encryptionKeys);
  const dispatcher = new WebhookDispatcher({
    engine: () => db().engine,
    transact,
    box,
    allowPrivate: config.allowPrivate,
    concurrency: config.concurrency,
    pollMs: config.pollMs,
    // Delivery rows are kept as the change log's entries are (CHANGE_LOG_RETENTION_DAYS).
    retentionDays: options.retentionDays ?? 90,
    feed: options.feed,
  });
  const webhooks: Webhooks = { box, allowPrivate: config.allowPrivate, feed: options.feed, dispatcher };
  dispatcher.start();
  return { webhooks, stop: () => dispatcher.stop() };
}
