import pg from 'pg';

/**
 * The generated data set. Every value is a pure function of the row number (no randomness), so
 * every run and every machine measures the same rows. Rows are spread round-robin: row n of a
 * table that belongs to organizations belongs to organization ((n - 1) % 20) + 1.
 */
export const size = {
  organizations: 20,
  users: 500,
  whiteboards: 5_000,
  streamsPerBoard: 5,
  slidesPerStream: 4,
  stepsPerStream: 2,
  objectsPerBoard: 10,
  connectionsPerBoard: 5,
  libraries: 200,
  classes: 2_000,
  attributesPerClass: 3,
  /** Case m's boards: the first of organization 2's (case b, which reads instances, reads organization 1's). */
  movingBoards: 100,
  /** Instances more on each of them: five of each of its objects, what case m moves per request. */
  movablePerBoard: 50,
} as const;

const orgs = size.organizations;
/** Rows of organization `org` among `count` round-robin rows: org, org + 20, ... */
export function rowsOf(org: number, count: number): number[] {
  return Array.from({ length: Math.floor(count / orgs) }, (_, k) => org + orgs * k);
}
/** User n (1..20) owns organization n and belongs to no other: the key holders. */
export const ownerOf = (org: number) => org;

/** Instances before case m's: every object's, and every fourth object's second. */
const firstMovable = size.whiteboards * size.objectsPerBoard * (1 + 1 / 4);
/** Case m's boards, and the ids of the instances added to the k-th of them. */
export const movingBoardIds = rowsOf(2, size.whiteboards).slice(0, size.movingBoards);
export const movableInstances = (k: number): number[] =>
  Array.from({ length: size.movablePerBoard }, (_, j) => firstMovable + k * size.movablePerBoard + j + 1);

const t0 = `timestamp '2026-01-01 00:00:00'`;
/** Author of board b: one of the 25 primary members of its organization, in turn. */
const boardAuthor = (b: string) => `(((${b} - 1) % ${orgs}) + 1) + ${orgs} * (((${b} - 1) / ${orgs}) % 25)`;
const boardOrg = (b: string) => `(((${b} - 1) % ${orgs}) + 1)`;

// Ids are given explicitly so that foreign keys can be computed; sequences are moved past them at the end.
const steps: { table: string; sql: string }[] = [
  {
    table: 'rate',
    sql: `INSERT INTO rate (id, code, name, max_users, max_whiteboards, created_at, updated_at) VALUES
      (1, 'FREE', 'Free', 5, 10, ${t0}, ${t0}), (2, 'STANDARD', 'Standard', 50, 500, ${t0}, ${t0}),
      (3, 'PROFESSIONAL', 'Professional', 500, 5000, ${t0}, ${t0}), (4, 'ENTERPRISE', 'Enterprise', NULL, NULL, ${t0}, ${t0})`,
  },
  {
    table: 'organization',
    sql: `INSERT INTO organization (id, name, rate_id, created_at, updated_at)
      SELECT o, 'Organization ' || o, (o % 4) + 1, ${t0} + o * interval '1 hour', ${t0} + o * interval '1 hour'
      FROM generate_series(1, ${orgs}) o`,
  },
  {
    table: 'user',
    sql: `INSERT INTO "user" (id, email, first_name, last_name, is_active, is_admin, organization_id, created_at, updated_at)
      SELECT u, 'user' || u || '@bench.example', 'First' || u, 'Last' || u, true, false, ((u - 1) % ${orgs}) + 1,
        ${t0} + u * interval '1 minute', ${t0} + u * interval '1 minute'
      FROM generate_series(1, ${size.users}) u`,
  },
  {
    // Everyone belongs to their active organization; every fifth user (not an owner) also to a second one.
    table: 'user_organization',
    sql: `INSERT INTO user_organization (id, user_id, organization_id, role, last_activity, created_at, updated_at)
      SELECT u, u, ((u - 1) % ${orgs}) + 1,
        (CASE WHEN u <= ${orgs} THEN 'OWNER' WHEN u % 4 = 0 THEN 'ADMIN' WHEN u % 4 = 1 THEN 'VIEWER' ELSE 'MEMBER' END)::role,
        ${t0}, ${t0}, ${t0}
      FROM generate_series(1, ${size.users}) u
      UNION ALL
      SELECT ${size.users} + u / 5, u, ((u + 6) % ${orgs}) + 1, 'MEMBER'::role, ${t0}, ${t0}, ${t0}
      FROM generate_series(${orgs + 1}, ${size.users}) u WHERE u % 5 = 0`,
  },
  {
    // Files 1..5000 are the boards' mini drawings; then a light and a dark image per texture.
    table: 'file',
    sql: `INSERT INTO file (id, file, name, content_type, size, organization_id, uploaded_by_id, created_at)
      SELECT f, 'files/' || f || '.png', 'image-' || f || '.png', 'image/png', 1000 + (f * 7919) % 100000, org, org, ${t0}
      FROM generate_series(1, ${size.whiteboards + 2 * size.classes}) f,
        LATERAL (SELECT CASE WHEN f <= ${size.whiteboards} THEN ${boardOrg('f')}
                             ELSE ((f - ${size.whiteboards + 1}) / 2) % ${orgs} + 1 END AS org) o`,
  },
  {
    table: 'whiteboard',
    sql: `INSERT INTO whiteboard (id, name, description, author_id, organization_id, in_the_archive, mini_drawing_id, created_at, updated_at)
      SELECT b, 'Board ' || b, 'Description of board ' || b, ${boardAuthor('b')}, ${boardOrg('b')}, false,
        CASE WHEN b % 2 = 0 THEN b END, ${t0} + b * interval '1 minute', ${t0} + b * interval '1 minute' + interval '1 day'
      FROM generate_series(1, ${size.whiteboards}) b`,
  },
  {
    table: 'whiteboard_data_stream',
    sql: `INSERT INTO whiteboard_data_stream (id, name, description, icon, color, author_id, whiteboard_id, created_at, updated_at)
      SELECT s, 'Stream ' || s, 'Flow ' || s, 'icon-' || (s % 5), (ARRAY['#e53935', '#1e88e5', '#43a047', '#fdd835', '#8e24aa'])[(s % 5) + 1],
        ${boardAuthor('b')}, b, ${t0} + s * interval '1 second', ${t0} + s * interval '1 second'
      FROM generate_series(1, ${size.whiteboards * size.streamsPerBoard}) s, LATERAL (SELECT (s - 1) / ${size.streamsPerBoard} + 1 AS b) x`,
  },
  {
    // Camera coordinates are multiples of 0.25 so that both JSON encoders print them identically.
    table: 'whiteboard_data_stream_slide',
    sql: `INSERT INTO whiteboard_data_stream_slide (id, data_stream_id, author_id, "order", name, description, connections_is_used,
        enable_camera, camera_x1, camera_y1, camera_x2, camera_y2, enable_description, created_at, updated_at)
      SELECT i, (i - 1) / ${size.slidesPerStream} + 1, ${boardAuthor('b')}, ((i - 1) % ${size.slidesPerStream}) + 1,
        'Slide ' || i, 'Notes of slide ' || i, i % 2 = 0, i % 3 = 0,
        (i % 997) * 0.25, (i % 991) * 0.25, (i % 997) * 0.25 + 640, (i % 991) * 0.25 + 360, i % 5 = 0,
        ${t0} + i * interval '1 second', ${t0} + i * interval '1 second'
      FROM generate_series(1, ${size.whiteboards * size.streamsPerBoard * size.slidesPerStream}) i,
        LATERAL (SELECT (i - 1) / ${size.streamsPerBoard * size.slidesPerStream} + 1 AS b) x`,
  },
  {
    table: 'library',
    sql: `INSERT INTO library (id, organization_id, author_id, name, description, published_status, created_at, updated_at)
      SELECT l, ${boardOrg('l')}, ${boardOrg('l')}, 'Library ' || l, 'Classes of library ' || l,
        (ARRAY['DRAFT', 'PUBLISHED', 'ARCHIVED'])[(l % 3) + 1]::library_published_status, ${t0}, ${t0}
      FROM generate_series(1, ${size.libraries}) l`,
  },
  {
    // Texture t lives in library ((t - 1) % 200) + 1, with images 5000 + 2t - 1 (light) and 5000 + 2t (dark).
    table: 'library_class_texture',
    sql: `INSERT INTO library_class_texture (id, library_id, name, light_theme_image_id, dark_theme_image_id,
        icon_x, icon_y, icon_width, icon_height, name_x, name_y, name_width, name_height, width, height, created_at, updated_at)
      SELECT t, ((t - 1) % ${size.libraries}) + 1, 'Texture ' || t, ${size.whiteboards} + 2 * t - 1, ${size.whiteboards} + 2 * t,
        t % 8, t % 6, 24, 24, 32, 4, 120, 20, 160, 90, ${t0}, ${t0}
      FROM generate_series(1, ${size.classes}) t`,
  },
  {
    // Class c uses texture c, of the same library.
    table: 'library_class_conf',
    sql: `INSERT INTO library_class_conf (id, library_id, name, description, class_type, icon, figure_type, texture_id, created_at, updated_at)
      SELECT c, ((c - 1) % ${size.libraries}) + 1, 'Class ' || c, 'Objects of class ' || c,
        (ARRAY['OBJECT', 'PROCESS', 'DATA', 'ACTOR', 'SYSTEM', 'CONTAINER'])[(c % 6) + 1]::library_class_type,
        'icon-' || (c % 10), (ARRAY['rectangle', 'ellipse', 'diamond'])[(c % 3) + 1], c, ${t0}, ${t0}
      FROM generate_series(1, ${size.classes}) c`,
  },
  {
    table: 'library_class_conf_attribute',
    sql: `INSERT INTO library_class_conf_attribute (id, class_conf_id, name, code, type, "order", is_required, created_at, updated_at)
      SELECT a, (a - 1) / 3 + 1, 'Attribute ' || k, 'attr_' || k,
        (ARRAY['STRING', 'INTEGER', 'BOOLEAN'])[k]::class_conf_attribute_type, k, k = 1, ${t0}, ${t0}
      FROM generate_series(1, ${size.classes * size.attributesPerClass}) a, LATERAL (SELECT ((a - 1) % 3) + 1 AS k) x`,
  },
  {
    // Four objects in five have a class of their board's organization.
    table: 'whiteboard_object',
    sql: `INSERT INTO whiteboard_object (id, whiteboard_id, class_conf_id, author_id, name, description, created_at, updated_at)
      SELECT i, b, CASE WHEN i % 5 <> 0 THEN ${boardOrg('b')} + ${orgs} * ((i * 7) % ${size.classes / orgs}) END,
        ${boardAuthor('b')}, 'Object ' || i, 'Thing ' || i, ${t0}, ${t0}
      FROM generate_series(1, ${size.whiteboards * size.objectsPerBoard}) i, LATERAL (SELECT (i - 1) / ${size.objectsPerBoard} + 1 AS b) x`,
  },
  {
    // Every object is drawn once; every fourth a second time; the objects of case m's boards five times more.
    table: 'whiteboard_object_instance',
    sql: `INSERT INTO whiteboard_object_instance (id, object_id, x, y, width, height, z_index, created_at, updated_at)
      SELECT i, i, (i % 50) * 40, ((i / 50) % 50) * 40, 120, 80, i % 10, ${t0}, ${t0}
      FROM generate_series(1, ${size.whiteboards * size.objectsPerBoard}) i
      UNION ALL
      SELECT ${size.whiteboards * size.objectsPerBoard} + i / 4, i, (i % 50) * 40 + 600, ((i / 50) % 50) * 40, 120, 80, 1, ${t0}, ${t0}
      FROM generate_series(4, ${size.whiteboards * size.objectsPerBoard}, 4) i
      UNION ALL
      SELECT ${firstMovable} + n, (b - 1) * ${size.objectsPerBoard} + ((n - 1) % ${size.movablePerBoard}) % ${size.objectsPerBoard} + 1,
        ((n - 1) % ${size.movablePerBoard}) * 40, 2000, 120, 80, 2, ${t0}, ${t0}
      FROM generate_series(1, ${size.movingBoards * size.movablePerBoard}) n,
        LATERAL (SELECT 2 + ${orgs} * ((n - 1) / ${size.movablePerBoard}) AS b) x`,
  },
  {
    // A value for each attribute of the object's class, in the column of the attribute's type.
    table: 'whiteboard_object_attribute_data',
    sql: `INSERT INTO whiteboard_object_attribute_data (id, object_id, attribute_id, value_str, value_number, value_bool, created_at, updated_at)
      SELECT (o.id - 1) * 3 + k, o.id, (o.class_conf_id - 1) * 3 + k,
        CASE WHEN k = 1 THEN 'Value ' || o.id END, CASE WHEN k = 2 THEN (o.id % 1000) * 0.5 END, CASE WHEN k = 3 THEN o.id % 2 = 0 END,
        ${t0}, ${t0}
      FROM whiteboard_object o CROSS JOIN generate_series(1, 3) k WHERE o.class_conf_id IS NOT NULL`,
  },
  {
    // A chain through the first six objects of each board.
    table: 'whiteboard_object_connection',
    sql: `INSERT INTO whiteboard_object_connection (id, whiteboard_id, source_object_id, target_object_id, name, color, direction, shape, style, created_at, updated_at)
      SELECT i, b, (b - 1) * ${size.objectsPerBoard} + j + 1, (b - 1) * ${size.objectsPerBoard} + j + 2, 'Link ' || i, '#455a64',
        (ARRAY['NONE', 'FORWARD', 'BACKWARD', 'BIDIRECTIONAL'])[(i % 4) + 1]::object_connection_direction,
        (ARRAY['STRAIGHT', 'CURVED', 'ORTHOGONAL'])[(i % 3) + 1]::object_connection_shape,
        (ARRAY['SOLID', 'DASHED', 'DOTTED'])[(i % 3) + 1]::object_connection_style, ${t0}, ${t0}
      FROM generate_series(1, ${size.whiteboards * size.connectionsPerBoard}) i,
        LATERAL (SELECT (i - 1) / ${size.connectionsPerBoard} + 1 AS b, (i - 1) % ${size.connectionsPerBoard} AS j) x`,
  },
  {
    // Each stream walks two consecutive links of its board.
    table: 'whiteboard_data_stream_connection',
    sql: `INSERT INTO whiteboard_data_stream_connection (id, data_stream_id, object_connection_id, direction, "order", description, created_at, updated_at)
      SELECT i, s, (b - 1) * ${size.connectionsPerBoard} + ((s - 1 + k - 1) % ${size.connectionsPerBoard}) + 1,
        (ARRAY['FORWARD', 'BACKWARD', 'BIDIRECTIONAL'])[(i % 3) + 1]::data_stream_connection_direction, k, 'Step ' || k, ${t0}, ${t0}
      FROM generate_series(1, ${size.whiteboards * size.streamsPerBoard * size.stepsPerStream}) i,
        LATERAL (SELECT (i - 1) / ${size.stepsPerStream} + 1 AS s, ((i - 1) % ${size.stepsPerStream}) + 1 AS k) x,
        LATERAL (SELECT (s - 1) / ${size.streamsPerBoard} + 1 AS b) y`,
  },
];

export interface LoadReport {
  seconds: number;
  rows: Record<string, number>;
}

/** Loads the data set into the migrated, empty database at `url`, one INSERT ... SELECT per table. */
export async function loadDataset(url: string): Promise<LoadReport> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const started = performance.now();
  const rows: Record<string, number> = {};
  try {
    for (const step of steps) {
      const result = await client.query(step.sql);
      rows[step.table] = result.rowCount ?? 0;
    }
    // Later inserts (API keys, action logs of the mutation case) must not collide with the explicit ids.
    for (const { table } of steps) {
      await client.query(`SELECT setval(pg_get_serial_sequence('"${table}"', 'id'), (SELECT max(id) FROM "${table}"))`);
    }
    // Fresh statistics, so the planner sees production-like tables from the first request.
    await client.query('VACUUM ANALYZE');
  } finally {
    await client.end();
  }
  return { seconds: (performance.now() - started) / 1000, rows };
}
