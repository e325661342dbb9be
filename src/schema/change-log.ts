import { db } from '../db/index.js';
import type { LiveEvent } from '../live/events.js';
import { expiredBecause, readOn, readScope, type LogScope } from '../live/log-read.js';
import { before, decodeCursor, type Position } from '../live/positions.js';
import { builder } from './builder.js';
import { findForChange } from './changes.js';
import { badUserInput, cursorExpired } from './errors.js';
import { WhiteboardEvent } from './subscriptions.js';

/** Changes one page may hold: a job catching up reads a few thousand a second this way. */
const MAX_FIRST = 1000;
const DEFAULT_FIRST = 100;

interface ChangePage {
  changes: LiveEvent[];
  endCursor: string;
  hasNextPage: boolean;
}

const ChangeEdge = builder.objectRef<LiveEvent>('ChangeEdge').implement({
  fields: (t) => ({
    cursor: t.exposeString('cursor'),
    node: t.field({ type: WhiteboardEvent, resolve: (event) => event }),
  }),
});

const ChangeConnection = builder.objectRef<ChangePage>('ChangeConnection').implement({
  description: 'Committed changes in commit order, as subscriptions tell them, a page at a time.',
  fields: (t) => ({
    edges: t.field({ type: [ChangeEdge], resolve: (page) => page.changes }),
    pageInfo: t.field({
      type: builder.pageInfoRef(),
      description:
        '`endCursor` is where the next page starts, past every change committed so far when `hasNextPage` is false: keep it to read what comes later.',
      resolve: (page) => ({
        hasNextPage: page.hasNextPage,
        hasPreviousPage: false,
        startCursor: page.changes[0]?.cursor ?? null,
        endCursor: page.endCursor,
      }),
    }),
  }),
});

/** The log a page reads: exactly one of a board and an organization, each as the caller may see it. */
async function scopeOf(
  args: { whiteboardId?: number | null; organizationId?: number | null },
  ctx: Parameters<typeof findForChange>[0],
): Promise<LogScope> {
  const { whiteboardId, organizationId } = args;
  if ((whiteboardId == null) === (organizationId == null))
    throw badUserInput(
      'Name exactly one of whiteboardId and organizationId',
      whiteboardId == null ? 'whiteboardId' : 'organizationId',
    );
  if (whiteboardId != null) {
    await findForChange(ctx, 'Whiteboard', whiteboardId, 'Whiteboard');
    return { whiteboardId };
  }
  await findForChange(ctx, 'Organization', organizationId!, 'Organization');
  return { organizationId: organizationId! };
}

builder.queryField('changes', (t) =>
  t.field({
    type: ChangeConnection,
    description:
      "The committed changes of one board, or of one organization, after a cursor (an event's, or a page's `endCursor`), in commit order: how a client that was away, or a job, catches up. A cursor older than the change log keeps (CHANGE_LOG_RETENTION_DAYS) or of another database is refused with CURSOR_EXPIRED, whose `extensions.cursor` reads on from now.",
    args: {
      whiteboardId: t.arg.int(),
      organizationId: t.arg.int(),
      after: t.arg.string({ description: 'Where to start; none: at the oldest change the log keeps.' }),
      first: t.arg.int({ description: `Changes at most, 1 to ${MAX_FIRST}; ${DEFAULT_FIRST} when not given.` }),
    },
    resolve: async (_root, args, ctx) => {
      const first = args.first ?? DEFAULT_FIRST;
      if (!Number.isInteger(first) || first < 1 || first > MAX_FIRST)
        throw badUserInput(`first must be between 1 and ${MAX_FIRST}`, 'first');
      const cursor = args.after == null ? undefined : decodeCursor(args.after, 'after');
      const scope = await scopeOf(args, ctx);
      const from: Position = cursor ?? before('0');
      const { head, changes } = await readScope(db().engine.queryRows, scope, from, first + 1);
      const expired = cursor && expiredBecause(cursor, head);
      if (expired) throw cursorExpired(`${expired}; read on from extensions.cursor`, readOn(head));
      const hasNextPage = changes.length > first;
      const page = changes.slice(0, first);
      const end = hasNextPage ? page[first - 1].cursor : readOn(head, cursor && { cursor, text: args.after! });
      return { changes: page, hasNextPage, endCursor: end };
    },
  }),
);
