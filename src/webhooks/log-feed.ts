import type { DatabaseEngine } from '../db/engine.js';
import { expiredBecause, readHead, readOn, readOrganizations, type LoggedChange } from '../live/log-read.js';
import { decodeCursor } from '../live/positions.js';
import { logger } from '../observability/logger.js';
import type { ChangeFeed, WebhookChange } from './feed.js';

const webhookChange = (change: LoggedChange, organizationId: number): WebhookChange => ({
  cursor: change.cursor,
  kind: change.kind,
  type: change.type,
  rowId: change.rowId,
  ...(change.rowIds && { rowIds: change.rowIds }),
  whiteboardId: change.whiteboardId,
  organizationId,
  committedAt: change.committedAt,
  actor: change.actor,
});

/**
 * The change log as the webhook dispatcher reads it: each endpoint's cursor is a log cursor, and a
 * read answers the organization's entries after it, below the horizon. An endpoint whose cursor the
 * log cannot continue from (its changes are past retention: it was disabled longer than that) goes
 * on from now, with a warning: its deliveries could not be made any more.
 */
export function logFeed(engine: () => DatabaseEngine): ChangeFeed {
  const run: DatabaseEngine['queryRows'] = (sql, args) => engine().queryRows(sql, args);
  return {
    head: async () => readOn(await readHead(run)),
    async read(pages, limit) {
      const cursors = pages.map((page) => decodeCursor(page.after, 'cursor'));
      const reads = pages.map((page, i) => ({ organizationId: page.organizationId, after: cursors[i] }));
      const { head, changes } = await readOrganizations(run, reads, limit);
      return pages.map(({ organizationId, after }, i) => {
        const expired = expiredBecause(cursors[i], head);
        if (expired) {
          logger.warn({ organizationId, reason: expired }, 'webhooks: an endpoint cursor expired; it goes on from now');
          return { changes: [], cursor: readOn(head) };
        }
        const page = changes[i];
        return {
          changes: page.map((change) => webhookChange(change, organizationId)),
          cursor: page.length === limit ? page[limit - 1].cursor : readOn(head, { cursor: cursors[i], text: after }),
        };
      });
    },
  };
}
