import { builder } from './builder.js';
import { authorize, findForChange, recordChange } from './changes.js';
import { badUserInput } from './errors.js';
import { principalOf } from './context.js';

// Listing and reading archived boards is the `whiteboards` connection filtered on inTheArchive;
// unarchiving and deleting one board are unarchiveWhiteboard and deleteWhiteboard.

const Input = builder.inputType('DeleteArchivedWhiteboardsInput', {
  fields: (t) => ({
    organizationId: t.int({ description: 'Row id of the organization; defaults to the active organization.' }),
  }),
});

const Payload = builder.objectRef<{ rowIds: number[] }>('DeleteArchivedWhiteboardsPayload').implement({
  fields: (t) => ({
    deletedCount: t.int({
      description: 'How many archived boards were deleted.',
      resolve: (payload) => payload.rowIds.length,
    }),
    deletedRowIds: t.intList({ description: 'Row ids of the deleted boards.', resolve: (payload) => payload.rowIds }),
  }),
});

builder.mutationField('deleteArchivedWhiteboards', (t) =>
  t.field({
    type: Payload,
    description:
      'Deletes every archived board of an organization (the active one unless given), with everything on them, in one transaction.',
    args: { input: t.arg({ type: Input, required: false }) },
    resolve: async (_root, args, ctx) => {
      const organizationId = args.input?.organizationId ?? principalOf(ctx).activeOrganizationId;
      if (organizationId == null)
        throw badUserInput('organizationId is required: the caller has no active organization', 'input.organizationId');
      await findForChange(ctx, 'Organization', organizationId, 'Organization');
      authorize(ctx, 'delete', organizationId);
      // One action log entry per board, as deleteWhiteboard writes.
      const boards = await recordChange(
        ctx,
        { method: 'DELETE', entityType: 'Whiteboard', organizationId, many: true },
        async (tx) => {
          const archived = await tx.whiteboard.findMany({
            where: { organizationId, inTheArchive: true },
            select: { id: true },
            orderBy: { id: 'asc' },
          });
          await tx.whiteboard.deleteMany({ where: { id: { in: archived.map((board) => board.id) } } });
          return archived;
        },
      );
      return { rowIds: boards.map((board) => board.id) };
    },
  }),
);
