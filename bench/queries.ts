/**
 * What each read case asks the gateway, and the floor's answer to the same question: ONE
 * hand-written statement that fetches the same rows and has PostgreSQL build the very JSON the
 * gateway sends (the bench checks that both parse to equal values). Nested lists follow the
 * gateway's order and page size (20 unless asked): by id, slides and steps by `order`, then id.
 */

/** DateTime as the gateway prints it (ISO 8601, milliseconds, UTC; the columns hold UTC). */
const iso = (column: string) => `to_char(${column}, 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
/** The public path of a stored file, as File.file resolves it. */
const fileUrl = (column: string) => `'/files/' || ${column}`;

/** A Relay connection's `{edges: [{node}]}` over the rows of `from` (a subquery aliased `alias`). */
function edges(node: string, from: string, order: string): string {
  return `json_build_object('edges', COALESCE((SELECT json_agg(json_build_object('node', ${node}) ORDER BY ${order}) FROM ${from}), '[]'::json))`;
}

/** `first` rows of a related table, in the gateway's order. */
const page = (table: string, where: string, order: string, alias: string) =>
  `(SELECT * FROM ${table} WHERE ${where} ORDER BY ${order} LIMIT 20) ${alias}`;

// ---------------------------------------------------------------- a, g: three levels over 50 boards

const nestedLevels = [
  '',
  'dataStreams { edges { node { rowId name color } } }',
  'dataStreams { edges { node { rowId name color slides { edges { node { rowId order name enableCamera cameraX1 cameraY1 } } } } } }',
];

/** The nested read as clients write it: as it was first measured, with `pageInfo`, or page 2 by cursor. */
export type NestedForm = 'plain' | 'pageInfo' | 'after';

/** The nested read; `levels` 1..3 only for the check that depth costs no statements. */
export function nestedQuery(levels = 3, form: NestedForm = 'plain'): string {
  const after = form === 'after';
  return `query Nested($org: Int!, $first: Int!${after ? ', $after: String!' : ''}) {
  whiteboards(first: $first${after ? ', after: $after' : ''}, filter: { organizationId: { eq: $org } }) {
    totalCount${form === 'plain' ? '' : ' pageInfo { hasNextPage endCursor }'}
    edges { node { rowId name updatedAt author { rowId email firstName } organization { rowId name } ${nestedLevels[levels - 1]} } }
  }
}`;
}

const slideNode = `json_build_object('rowId', sl.id, 'order', sl."order", 'name', sl.name, 'enableCamera', sl.enable_camera,
  'cameraX1', sl.camera_x1, 'cameraY1', sl.camera_y1)`;
const streamNode = `json_build_object('rowId', s.id, 'name', s.name, 'color', s.color,
  'slides', ${edges(slideNode, page('whiteboard_data_stream_slide', 'data_stream_id = s.id', '"order", id', 'sl'), 'sl."order", sl.id')})`;
const boardNode = `json_build_object('rowId', w.id, 'name', w.name, 'updatedAt', ${iso('w.updated_at')},
  'author', json_build_object('rowId', u.id, 'email', u.email, 'firstName', u.first_name),
  'organization', json_build_object('rowId', o.id, 'name', o.name),
  'dataStreams', ${edges(streamNode, page('whiteboard_data_stream', 'whiteboard_id = w.id', 'id', 's'), 's.id')})`;

/** A Pothos cursor of a row id, as the gateway writes it (base64 of `GPC:N:<id>`). */
const cursor = (id: string) => `encode(convert_to('GPC:N:' || ${id}, 'UTF8'), 'base64')`;

/**
 * $1 organization, $2 page size; paged, also $3 the row id after which the page starts (null for
 * page 1) and the connection's pageInfo.
 */
function nestedFloor(paged: boolean): string {
  const pageInfo = paged
    ? `'pageInfo', (SELECT json_build_object('hasNextPage', EXISTS (SELECT 1 FROM whiteboard WHERE organization_id = $1::int AND id > max(w.id)),
    'endCursor', ${cursor('max(w.id)')}) FROM w),`
    : '';
  return `WITH w AS (SELECT * FROM whiteboard WHERE organization_id = $1::int${paged ? ' AND id > COALESCE($3::int, 0)' : ''} ORDER BY id LIMIT $2::int)
SELECT json_build_object('data', json_build_object('whiteboards', json_build_object(
  'totalCount', (SELECT count(*) FROM whiteboard WHERE organization_id = $1::int), ${pageInfo}
  'edges', COALESCE((SELECT json_agg(json_build_object('node', ${boardNode}) ORDER BY w.id)
    FROM w JOIN "user" u ON u.id = w.author_id JOIN organization o ON o.id = w.organization_id), '[]'::json)
)))::text AS body`;
}

// ---------------------------------------------------------------- b: one board with everything on it

export const boardQuery = `query Board($rowId: Int!) {
  whiteboard(rowId: $rowId) {
    rowId name description inTheArchive updatedAt
    author { rowId email firstName lastName }
    organization { rowId name }
    miniDrawing { rowId file }
    dataStreams { edges { node {
      rowId name color
      slides { edges { node { rowId order name enableCamera cameraX1 cameraY1 cameraX2 cameraY2 } } }
      connections { edges { node { rowId order direction objectConnectionId } } }
    } } }
    objects { edges { node {
      rowId name classConfId
      instances { edges { node { rowId x y width height zIndex } } }
      attributes { edges { node { rowId attributeId valueStr valueNumber valueBool } } }
    } } }
    objectConnections { edges { node { rowId sourceObjectId targetObjectId name direction shape style } } }
  }
}`;

const fullSlide = `json_build_object('rowId', sl.id, 'order', sl."order", 'name', sl.name, 'enableCamera', sl.enable_camera,
  'cameraX1', sl.camera_x1, 'cameraY1', sl.camera_y1, 'cameraX2', sl.camera_x2, 'cameraY2', sl.camera_y2)`;
const step = `json_build_object('rowId', c.id, 'order', c."order", 'direction', c.direction, 'objectConnectionId', c.object_connection_id)`;
const fullStream = `json_build_object('rowId', s.id, 'name', s.name, 'color', s.color,
  'slides', ${edges(fullSlide, page('whiteboard_data_stream_slide', 'data_stream_id = s.id', '"order", id', 'sl'), 'sl."order", sl.id')},
  'connections', ${edges(step, page('whiteboard_data_stream_connection', 'data_stream_id = s.id', '"order", id', 'c'), 'c."order", c.id')})`;
const instance = `json_build_object('rowId', i.id, 'x', i.x, 'y', i.y, 'width', i.width, 'height', i.height, 'zIndex', i.z_index)`;
const attribute = `json_build_object('rowId', a.id, 'attributeId', a.attribute_id, 'valueStr', a.value_str,
  'valueNumber', a.value_number, 'valueBool', a.value_bool)`;
const object = `json_build_object('rowId', ob.id, 'name', ob.name, 'classConfId', ob.class_conf_id,
  'instances', ${edges(instance, page('whiteboard_object_instance', 'object_id = ob.id', 'id', 'i'), 'i.id')},
  'attributes', ${edges(attribute, page('whiteboard_object_attribute_data', 'object_id = ob.id', 'id', 'a'), 'a.id')})`;
const link = `json_build_object('rowId', l.id, 'sourceObjectId', l.source_object_id, 'targetObjectId', l.target_object_id,
  'name', l.name, 'direction', l.direction, 'shape', l.shape, 'style', l.style)`;

/** $1 board id. */
export const boardFloor = `SELECT json_build_object('data', json_build_object('whiteboard', (
  SELECT json_build_object('rowId', w.id, 'name', w.name, 'description', w.description, 'inTheArchive', w.in_the_archive,
    'updatedAt', ${iso('w.updated_at')},
    'author', (SELECT json_build_object('rowId', u.id, 'email', u.email, 'firstName', u.first_name, 'lastName', u.last_name) FROM "user" u WHERE u.id = w.author_id),
    'organization', (SELECT json_build_object('rowId', o.id, 'name', o.name) FROM organization o WHERE o.id = w.organization_id),
    'miniDrawing', (SELECT json_build_object('rowId', f.id, 'file', ${fileUrl('f.file')}) FROM file f WHERE f.id = w.mini_drawing_id),
    'dataStreams', ${edges(fullStream, page('whiteboard_data_stream', 'whiteboard_id = w.id', 'id', 's'), 's.id')},
    'objects', ${edges(object, page('whiteboard_object', 'whiteboard_id = w.id', 'id', 'ob'), 'ob.id')},
    'objectConnections', ${edges(link, page('whiteboard_object_connection', 'whiteboard_id = w.id', 'id', 'l'), 'l.id')})
  FROM whiteboard w WHERE w.id = $1::int)))::text AS body`;

// ---------------------------------------------------------------- c, d, e: the legacy REST shapes (legacy-v1-interface.md)

// The REST lists answer a page and its total (X-Total-Count): the floor's one statement returns both.

/** A board in the legacy REST form, from `w` with its author `u`, organization `o` and mini drawing `f`. */
const restBoard = `json_build_object(
    'id', w.id, 'name', w.name, 'description', w.description, 'author_id', w.author_id, 'organization_id', w.organization_id,
    'in_the_archive', w.in_the_archive, 'mini_drawing_id', w.mini_drawing_id,
    'created_at', ${iso('w.created_at')}, 'updated_at', ${iso('w.updated_at')},
    'author', json_build_object('id', u.id, 'email', u.email, 'first_name', u.first_name, 'organization_id', u.organization_id),
    'organization', json_build_object('id', o.id, 'name', o.name, 'rate_id', o.rate_id),
    'mini_drawing', CASE WHEN f.id IS NOT NULL THEN json_build_object('id', f.id, 'file', ${fileUrl('f.file')}) END
  )`;
const restBoardJoins = `JOIN "user" u ON u.id = w.author_id JOIN organization o ON o.id = w.organization_id
  LEFT JOIN file f ON f.id = w.mini_drawing_id`;

/** $1 rows, $2 organization or null for all: boards in the list form, with author, organization and mini drawing. */
export const whiteboardListFloor = `SELECT (SELECT count(*) FROM whiteboard WHERE $2::int IS NULL OR organization_id = $2::int) AS total,
  COALESCE(json_agg(${restBoard} ORDER BY w.id), '[]'::json)::text AS body
  FROM (SELECT * FROM whiteboard WHERE $2::int IS NULL OR organization_id = $2::int ORDER BY id LIMIT $1::int) w
  ${restBoardJoins}`;

/** $1 board id: one board as `GET /api/whiteboard/v1/{id}/` answers it. */
const whiteboardFloor = `SELECT ${restBoard}::text AS body FROM whiteboard w ${restBoardJoins} WHERE w.id = $1::int`;

/** $1 board id: three columns of one board, as the root field `field` (whiteboard, node) answers them. */
const lookupFloor = (field: string) => `SELECT json_build_object('data', json_build_object('${field}', (
  SELECT json_build_object('rowId', id, 'name', name, 'description', description) FROM whiteboard WHERE id = $1::int)))::text AS body`;

/** $1 rows, $2 organization or null for all: slides with their data stream. */
export const slideListFloor = `SELECT (SELECT count(*) FROM whiteboard_data_stream_slide sl
    JOIN whiteboard_data_stream s ON s.id = sl.data_stream_id JOIN whiteboard w ON w.id = s.whiteboard_id
    WHERE $2::int IS NULL OR w.organization_id = $2::int) AS total,
  COALESCE(json_agg(json_build_object(
    'id', sl.id, 'data_stream_id', sl.data_stream_id, 'author_id', sl.author_id, 'order', sl."order", 'name', sl.name,
    'description', sl.description, 'connections_is_used', sl.connections_is_used, 'enable_camera', sl.enable_camera,
    'camera_x1', sl.camera_x1, 'camera_y1', sl.camera_y1, 'camera_x2', sl.camera_x2, 'camera_y2', sl.camera_y2,
    'enable_description', sl.enable_description,
    'data_stream', json_build_object('id', s.id, 'name', s.name, 'icon', s.icon, 'color', s.color, 'author_id', s.author_id,
      'whiteboard_id', s.whiteboard_id)
  ) ORDER BY sl.id), '[]'::json)::text AS body
  FROM (SELECT sl.* FROM whiteboard_data_stream_slide sl
        JOIN whiteboard_data_stream s ON s.id = sl.data_stream_id JOIN whiteboard w ON w.id = s.whiteboard_id
        WHERE $2::int IS NULL OR w.organization_id = $2::int ORDER BY sl.id LIMIT $1::int) sl
  JOIN whiteboard_data_stream s ON s.id = sl.data_stream_id`;

const image = (column: string) =>
  `(SELECT json_build_object('id', f.id, 'file', ${fileUrl('f.file')}) FROM file f WHERE f.id = ${column})`;

/** $1 class id: the class with its texture and the texture's images. */
export const classConfFloor = `SELECT json_build_object(
    'id', c.id, 'name', c.name, 'description', c.description, 'library_id', c.library_id, 'class_type', c.class_type,
    'icon', c.icon, 'figure_type', c.figure_type, 'texture_id', c.texture_id,
    'texture', (SELECT json_build_object('id', t.id, 'light_theme_image_id', t.light_theme_image_id, 'dark_theme_image_id', t.dark_theme_image_id,
      'light_theme_image', ${image('t.light_theme_image_id')}, 'dark_theme_image', ${image('t.dark_theme_image_id')},
      'icon_x', t.icon_x, 'icon_y', t.icon_y, 'icon_width', t.icon_width, 'icon_height', t.icon_height, 'icon_visible', t.icon_visible,
      'light_theme_text_color', t.light_theme_text_color, 'dark_theme_text_color', t.dark_theme_text_color,
      'name_font_size', t.name_font_size, 'name_x', t.name_x, 'name_y', t.name_y, 'name_width', t.name_width,
      'name_height', t.name_height, 'name_visible', t.name_visible,
      'class_name_font_size', t.class_name_font_size, 'class_name_visible', t.class_name_visible,
      'class_name_x', t.class_name_x, 'class_name_y', t.class_name_y, 'class_name_width', t.class_name_width,
      'class_name_height', t.class_name_height, 'width', t.width, 'height', t.height,
      'light_class_name_color', t.light_class_name_color, 'dark_class_name_color', t.dark_class_name_color,
      'is_text_in_center_without_logo', t.is_text_in_center_without_logo)
      FROM library_class_texture t WHERE t.id = c.texture_id)
  )::text AS body
  FROM library_class_conf c WHERE c.id = $1::int`;

/** The floor server's routes: path -> statement and the query-string parameters that fill $1, $2. */
export const floorRoutes: Record<string, { sql: string; params: string[] }> = {
  '/nested': { sql: nestedFloor(false), params: ['org', 'first'] },
  '/nested-paged': { sql: nestedFloor(true), params: ['org', 'first', 'after'] },
  '/lookup': { sql: lookupFloor('whiteboard'), params: ['id'] },
  '/node': { sql: lookupFloor('node'), params: ['id'] },
  '/whiteboard': { sql: whiteboardFloor, params: ['id'] },
  '/board': { sql: boardFloor, params: ['id'] },
  '/whiteboards': { sql: whiteboardListFloor, params: ['limit', 'org'] },
  '/slides': { sql: slideListFloor, params: ['limit', 'org'] },
  '/class-conf': { sql: classConfFloor, params: ['id'] },
};
