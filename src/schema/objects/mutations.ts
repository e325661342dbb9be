import { defineCrudMutations, type FieldSpec, boardOfRow, longText } from '../crud.js';
import { ObjectConnectionDirection, ObjectConnectionShape, ObjectConnectionStyle } from '../enums.js';
import { badUserInput } from '../errors.js';
import { principalOf } from '../context.js';

const size: FieldSpec = { type: 'Float', min: 0 };

// Deleting an object (with its instances, values, connections and relations) is editing the board's content, like creating it.
defineCrudMutations({
  model: 'WhiteboardObject',
  typeName: 'WhiteboardObject',
  label: 'Whiteboard object',
  action: 'editContent',
  parent: 'whiteboardId',
  fields: {
    whiteboardId: boardOfRow,
    classConfId: {
      type: 'Int',
      references: 'ClassConf',
      description: "Row id of a library class of the board's organization; null for a plain object.",
    },
    name: { type: 'String', required: true },
    description: longText,
  },
  onCreate: (_tx, _data, ctx) => ({ authorId: principalOf(ctx).userId }),
  // Values of another class would be orphans the object can never edit again, so a change of class drops them.
  onUpdate: async (tx, data, rowId) => {
    if (data.classConfId === undefined) return;
    const otherClass = data.classConfId === null ? {} : { attribute: { classConfId: { not: data.classConfId } } };
    await tx.whiteboardObjectAttribute.deleteMany({ where: { objectId: rowId, ...otherClass } });
  },
});

/** Where an instance is drawn and how large: what updateWhiteboardObjectInstance and moveWhiteboardObjectInstances change. */
export const instancePlacement = {
  x: { type: 'Float' },
  y: { type: 'Float' },
  width: size,
  height: size,
  zIndex: { type: 'Int' },
} satisfies Record<string, FieldSpec>;

defineCrudMutations({
  model: 'WhiteboardObjectInstance',
  typeName: 'WhiteboardObjectInstance',
  label: 'Whiteboard object instance',
  action: 'editContent',
  parent: 'objectId',
  fields: {
    objectId: {
      type: 'Int',
      required: true,
      references: 'WhiteboardObject',
      description: 'Row id of the object drawn.',
    },
    ...instancePlacement,
  },
});

const connectionEnds = ['sourceObjectId', 'targetObjectId'] as const;

defineCrudMutations({
  model: 'WhiteboardObjectConnection',
  typeName: 'WhiteboardObjectConnection',
  label: 'Whiteboard object connection',
  action: 'editContent',
  parent: 'whiteboardId',
  fields: {
    whiteboardId: boardOfRow,
    sourceObjectId: {
      type: 'Int',
      required: true,
      references: 'WhiteboardObject',
      description: 'Row id of an object on the same board.',
    },
    targetObjectId: {
      type: 'Int',
      required: true,
      references: 'WhiteboardObject',
      description: 'Row id of an object on the same board.',
    },
    name: { type: 'String' },
    color: { type: 'String', maxLength: 32 },
    direction: { type: ObjectConnectionDirection },
    shape: { type: ObjectConnectionShape },
    style: { type: ObjectConnectionStyle },
  },
  // A connection is drawn between two objects of its own board.
  check: async (tx, data, rowId) => {
    const ends = connectionEnds.filter((end) => data[end] != null);
    if (ends.length === 0) return;
    const whiteboardId =
      rowId == null
        ? data.whiteboardId!
        : (
            await tx.whiteboardObjectConnection.findUniqueOrThrow({
              where: { id: rowId },
              select: { whiteboardId: true },
            })
          ).whiteboardId;
    const onBoard = await tx.whiteboardObject.findMany({
      where: { id: { in: ends.flatMap((end) => data[end] ?? []) }, whiteboardId },
      select: { id: true },
    });
    for (const end of ends) {
      if (!onBoard.some((object) => object.id === data[end]))
        throw badUserInput(`${end} ${data[end]} is not an object of whiteboard ${whiteboardId}`, `input.${end}`);
    }
  },
});
