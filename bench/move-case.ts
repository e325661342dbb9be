/**
 * m: an editor drags a selection of 50 objects (issue 34): one moveWhiteboardObjectInstances per
 * request against the peer's 50 updateWhiteboardObjectInstanceByRowId in one request. Each request
 * moves the 50 instances of another of organization 2's boards, in turn, to places no earlier request
 * gave them, so no two requests in flight wait on each other's rows.
 */
import type { Case, CaseContext } from './case.js';
import { movableInstances, movingBoardIds, size } from './dataset.js';
import { peerMoveQuery } from './peer-queries.js';
import { graphql, peerGraphql } from './requests.js';

const moveQuery = `mutation Move($input: MoveWhiteboardObjectInstancesInput!) {
  moveWhiteboardObjectInstances(input: $input) { whiteboardObjectInstances { rowId x y width height zIndex } }
}`;
const peerQuery = peerMoveQuery(size.movablePerBoard);

/** Request i's board, and where it puts each of the board's instances (multiples of 0.25: both sides print them alike). */
function moves(i: number) {
  const k = i % movingBoardIds.length;
  return {
    whiteboardId: movingBoardIds[k],
    instances: movableInstances(k).map((rowId, j) => ({
      rowId,
      x: 0.25 * ((i * 7 + j * 13) % 8000),
      y: 0.25 * ((i * 11 + j * 5) % 8000),
      width: 100 + (i % 40),
      height: 60 + (j % 30),
      zIndex: (i + j) % 10,
    })),
  };
}

export function moveCase({ keys }: CaseContext): Case {
  // Key 1 belongs to the owner of organization 2.
  const key = 1;
  return {
    id: 'm',
    title: `move ${size.movablePerBoard} instances of one board in one request`,
    kind: 'mutation',
    peerTarget: 2,
    constant: false,
    gateway: (i) => graphql(keys, key, moveQuery, { input: moves(i) }),
    peer: (i) =>
      peerGraphql(
        peerQuery,
        Object.fromEntries(
          moves(i).instances.map(({ rowId, ...patch }, j) => [
            `m${j}`,
            { rowId, whiteboardObjectInstancePatch: patch },
          ]),
        ),
      ),
    notes: [
      `${size.movingBoards} boards in turn`,
      "the peer's updateWhiteboardObjectInstanceByRowId checks nothing, logs no action and sends no live event",
    ],
  };
}
