import { badUserInput } from '../schema/errors.js';

/**
 * A place in the change log: after the entry of transaction `xid` with id `id`. Entries are read in
 * (xid, id) order and only below the horizon (src/live/log-read.ts), so a reader at a position has
 * read every entry before it and none committed later can appear before it.
 */
export interface Position {
  /** A transaction id, as the text of a bigint (past 2^53). */
  xid: string;
  id: number;
}

/** The place before every entry of transaction `xid` and after every entry of the ones below it. */
export const before = (xid: string): Position => ({ xid, id: 0 });

export const isAfter = (a: Position, b: Position): boolean =>
  BigInt(a.xid) > BigInt(b.xid) || (a.xid === b.xid && a.id > b.id);

/** A cursor: a position with the identity of its database (ChangeLogState), opaque to clients. */
export interface Cursor extends Position {
  identity: string;
}

export const encodeCursor = ({ identity, xid, id }: Cursor): string =>
  Buffer.from(`${identity}:${xid}:${id}`).toString('base64url');

const shape = /^([0-9a-f-]{36}):(\d{1,19}):(\d{1,10})$/;

/** The cursor a client sent as `argument`; BAD_USER_INPUT naming it when it is no cursor of ours. */
export function decodeCursor(text: string, argument: string): Cursor {
  const match = shape.exec(Buffer.from(text, 'base64url').toString());
  if (!match || encodeCursor({ identity: match[1], xid: match[2], id: Number(match[3]) }) !== text)
    throw badUserInput(`${argument} is not a cursor this service gave out`, argument);
  return { identity: match[1], xid: BigInt(match[2]).toString(), id: Number(match[3]) };
}
