import { Prisma } from '../generated/prisma/client.js';
import type { Transaction } from './changes.js';

/** The children kept in an order: the table of the parent their appends lock, and their highest position under a parent. */
const orderedLists = {
  Slide: {
    parentTable: 'whiteboard_data_stream',
    last: (tx: Transaction, dataStreamId: number) => tx.slide.aggregate({ where: { dataStreamId }, _max: { order: true } }),
  },
  DataStreamConnection: {
    parentTable: 'whiteboard_data_stream',
    last: (tx: Transaction, dataStreamId: number) => tx.dataStreamConnection.aggregate({ where: { dataStreamId }, _max: { order: true } }),
  },
  ClassConfAttribute: {
    parentTable: 'library_class_conf',
    last: (tx: Transaction, classConfId: number) => tx.classConfAttribute.aggregate({ where: { classConfId }, _max: { order: true } }),
  },
};

export type OrderedList = keyof typeof orderedLists;

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
