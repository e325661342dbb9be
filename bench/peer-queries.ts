/**
 * What each read case asks the peer (PostGraphile 5, amber preset, connection filter; see
 * bench/peer/server.mjs): the GraphQL document that returns the gateway's rows, in its order and
 * page sizes, with the same fields in the same order, so that the bench can compare the two
 * answers' values one by one (checks.ts). The peer has no API keys: each document filters by the
 * organization the gateway's key sees, as the gateway's tenancy does. Nested lists are given the
 * gateway's default page (20) and order (by id; slides and steps by `order`, then id).
 */

import type { NestedForm } from './queries.js';

const page = (order = 'PRIMARY_KEY_ASC') => `first: 20, orderBy: [${order}]`;
const byOrder = page('ORDER_ASC, PRIMARY_KEY_ASC');

/** a, g: 50 boards of one organization, three levels ($org, $first); as the gateway's nestedQuery forms. */
export function peerNestedQuery(form: NestedForm = 'plain'): string {
  const after = form === 'after';
  return `query Nested($org: Int!, $first: Int!${after ? ', $after: Cursor!' : ''}) {
  allWhiteboards(first: $first${after ? ', after: $after' : ''}, orderBy: [PRIMARY_KEY_ASC], condition: { organizationId: $org }) {
    totalCount${form === 'plain' ? '' : ' pageInfo { hasNextPage endCursor }'}
    nodes {
      rowId name updatedAt
      userByAuthorId { rowId email firstName }
      organizationByOrganizationId { rowId name }
      whiteboardDataStreamsByWhiteboardId(${page()}) { nodes {
        rowId name color
        whiteboardDataStreamSlidesByDataStreamId(${byOrder}) { nodes { rowId order name enableCamera cameraX1 cameraY1 } }
      } }
    }
  }
}`;
}

/** a, page 2: the cursor after the first `$first` boards, as the peer writes it. */
export const peerEndCursorQuery = `query EndCursor($org: Int!, $first: Int!) {
  allWhiteboards(first: $first, orderBy: [PRIMARY_KEY_ASC], condition: { organizationId: $org }) { pageInfo { endCursor } }
}`;

/** h: three columns of one board ($rowId, and $org for tenancy). */
export const peerLookupQuery = `query Lookup($rowId: Int!, $org: Int!) {
  allWhiteboards(condition: { rowId: $rowId, organizationId: $org }) { nodes { rowId name description } }
}`;

/** i: the peer's node ids of one organization's boards, in row order, and the node lookup itself. */
export const peerNodeIdsQuery = `query NodeIds($org: Int!) {
  allWhiteboards(orderBy: [PRIMARY_KEY_ASC], condition: { organizationId: $org }) { nodes { id } }
}`;
export const peerNodeQuery = `query Node($id: ID!) { node(id: $id) { ... on Whiteboard { rowId name description } } }`;

/** b: one board with everything on it ($rowId, and $org for tenancy). */
export const peerBoardQuery = `query Board($rowId: Int!, $org: Int!) {
  allWhiteboards(condition: { rowId: $rowId, organizationId: $org }) { nodes {
    rowId name description inTheArchive updatedAt
    userByAuthorId { rowId email firstName lastName }
    organizationByOrganizationId { rowId name }
    fileByMiniDrawingId { rowId file }
    whiteboardDataStreamsByWhiteboardId(${page()}) { nodes {
      rowId name color
      whiteboardDataStreamSlidesByDataStreamId(${byOrder}) { nodes { rowId order name enableCamera cameraX1 cameraY1 cameraX2 cameraY2 } }
      whiteboardDataStreamStepsByDataStreamId(${byOrder}) { nodes { rowId order direction objectConnectionId } }
    } }
    whiteboardObjectsByWhiteboardId(${page()}) { nodes {
      rowId name classConfId
      whiteboardObjectInstancesByObjectId(${page()}) { nodes { rowId x y width height zIndex } }
      whiteboardObjectAttributeDataByObjectId(${page()}) { nodes { rowId attributeId valueStr valueNumber valueBool } }
    } }
    whiteboardObjectLinksByWhiteboardId(${page()}) { nodes { rowId sourceObjectId targetObjectId name direction shape style } }
  } }
}`;

// c, d, e: the fields of the legacy REST answers (src/rest/views.ts), in their order; the gateway's
// X-Total-Count is the peer's totalCount.

/** c, j, l: a board in the REST form's fields, with author, organization and mini drawing. */
const restBoard = `rowId name description authorId organizationId inTheArchive miniDrawingId createdAt updatedAt
      userByAuthorId { rowId email firstName organizationId }
      organizationByOrganizationId { rowId name rateId }
      fileByMiniDrawingId { rowId file }`;

/** c: the REST whiteboard list's page, boards not in the archive ($org, $first). */
export const peerWhiteboardListQuery = `query WhiteboardList($org: Int!, $first: Int!) {
  allWhiteboards(first: $first, orderBy: [PRIMARY_KEY_ASC], condition: { organizationId: $org, inTheArchive: false }) {
    totalCount
    nodes { ${restBoard} }
  }
}`;

/** j: one board, as `GET /api/whiteboard/v1/{id}/` answers it ($rowId, $org). */
export const peerWhiteboardQuery = `query Whiteboard($rowId: Int!, $org: Int!) {
  allWhiteboards(condition: { rowId: $rowId, organizationId: $org }) { nodes { ${restBoard} } }
}`;

/** k: a rename and its payload ($rowId, $name). */
export const peerRenameQuery = `mutation Rename($rowId: Int!, $name: String!) {
  updateWhiteboardByRowId(input: { rowId: $rowId, whiteboardPatch: { name: $name } }) { whiteboard { rowId name } }
}`;

/** l: a rename answered with the board in the REST form's fields, as `PUT /api/whiteboard/v1/{id}/` answers ($rowId, $name). */
export const peerRestRenameQuery = `mutation Rename($rowId: Int!, $name: String!) {
  updateWhiteboardByRowId(input: { rowId: $rowId, whiteboardPatch: { name: $name } }) { whiteboard { ${restBoard} } }
}`;

/** d: the REST slide list's page; a slide belongs to its stream's board's organization ($org, $first). */
export const peerSlideListQuery = `query SlideList($org: Int!, $first: Int!) {
  allWhiteboardDataStreamSlides(
    first: $first
    orderBy: [PRIMARY_KEY_ASC]
    filter: { whiteboardDataStreamByDataStreamId: { whiteboardByWhiteboardId: { organizationId: { equalTo: $org } } } }
  ) {
    totalCount
    nodes {
      rowId dataStreamId authorId order name description connectionsIsUsed enableCamera
      cameraX1 cameraY1 cameraX2 cameraY2 enableDescription
      whiteboardDataStreamByDataStreamId { rowId name icon color authorId whiteboardId }
    }
  }
}`;

const image = '{ rowId file }';

/** e: one library class with its texture and the texture's images; a class belongs to its library's organization ($rowId, $org). */
export const peerClassConfQuery = `query ClassConf($rowId: Int!, $org: Int!) {
  allLibraryClassConfs(condition: { rowId: $rowId }, filter: { libraryByLibraryId: { organizationId: { equalTo: $org } } }) { nodes {
    rowId name description libraryId classType icon figureType textureId
    libraryClassTextureByTextureId {
      rowId lightThemeImageId darkThemeImageId fileByLightThemeImageId ${image} fileByDarkThemeImageId ${image}
      iconX iconY iconWidth iconHeight iconVisible lightThemeTextColor darkThemeTextColor
      nameFontSize nameX nameY nameWidth nameHeight nameVisible
      classNameFontSize classNameVisible classNameX classNameY classNameWidth classNameHeight
      width height lightClassNameColor darkClassNameColor isTextInCenterWithoutLogo
    }
  } }
}`;

/** m: `count` instances moved, each by its own update aliased m0, m1, ... ($m0: the first's row id and patch, ...). */
export function peerMoveQuery(count: number): string {
  const moves = Array.from({ length: count }, (_, j) => j);
  return `mutation Move(${moves.map((j) => `$m${j}: UpdateWhiteboardObjectInstanceByRowIdInput!`).join(', ')}) {
${moves.map((j) => `  m${j}: updateWhiteboardObjectInstanceByRowId(input: $m${j}) { whiteboardObjectInstance { rowId x y width height zIndex } }`).join('\n')}
}`;
}
