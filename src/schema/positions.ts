import type { Where } from '../db/delegate.js';
import { Prisma } from '../generated/prisma/client.js';
import type { Transaction } from './changes.js';

/**
 * The children kept in an order, each under its parent: the parent's model, the column naming it,
 * the table its appends lock, and the child's highest position under a parent.
 */
const orderedLists = {
  Slide: {
    parentModel: 'DataStream',
    parentField: 'dataStreamId',
    parentTable: 'whiteboard_data_stream',
    children: (dataStreamId: number): Where<'Slide'> => ({ dataStreamId }),
    last: (tx: Transaction, dataStreamId: number) =>
      tx.slide.aggregate({ where: { dataStreamId }, _max: { order: true } }),
  },
  DataStreamConnection: {
    parentModel: 'DataStream',
    parentField: 'dataStreamId',
    parentTable: 'whiteboard_data_stream',
    children: (dataStreamId: number): Where<'DataStreamConnection'> => ({ dataStreamId }),
    last: (tx: Transaction, dataStreamId: number) =>
      tx.dataStreamConnection.aggregate({ where: { dataStreamId }, _max: { order: true } }),
  },
  ClassConfAttribute: {
    parentModel: 'ClassConf',
    parentField: 'classConfId',
    parentTable: 'library_class_conf',
    children: (classConfId: number): Where<'ClassConfAttribute'> => ({ classConfId }),
    last: (tx: Transaction, classConfId: number) =>
      tx.classConfAttribute.aggregate({ where: { classConfId }, _max: { order: true } }),
  },
} as const;

export type OrderedList = keyof typeof orderedLists;

export function orderedList<L extends OrderedList>(list: L): (typeof orderedLists)[L] {
  return orderedLists[list];
}

/**
 * The position after a parent's last child, for the row this transaction appends. Every append
 * locks the parent row first (until the commit), so concurrent appends to one parent take turns
 * instead of reading the same last position.
 */
export async function nextPosition(tx: Transaction, list: OrderedList, parentId: number): Promise<number> {
  const { parentTable, last } = orderedLists[list];
  await tx.$queryRaw`SELECT id FROM ${Prisma.raw(`"${parentTable}"`)} WHERE id = ${parentId} FOR UPDATE`;
  const { _max } = await last(tx, parentId);
  return (_max.order ?? 0) + 1;
}
