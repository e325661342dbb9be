import { expect, it } from 'vitest';
import { rest } from './rest.js';
import type { GatewayProcess } from './processes.js';
import type { TestServer } from './server.js';

type Type = 'integer' | 'organization id' | 'number' | 'string' | 'boolean' | 'date-time' | 'e-mail' | 'enum';
interface Fields {
  [field: string]: Type | Fields;
}

const is: Record<Type, (value: unknown) => boolean> = {
  integer: Number.isInteger,
  // A user's active organization (the table's integer), null where the caller is not in it (docs/authentication.md, Users).
  'organization id': (value) => value === null || Number.isInteger(value),
  number: (value) => typeof value === 'number' && Number.isFinite(value),
  string: (value) => typeof value === 'string',
  boolean: (value) => typeof value === 'boolean',
  'date-time': (value) =>
    typeof value === 'string' &&
    /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/.test(value) &&
    !Number.isNaN(Date.parse(value)),
  'e-mail': (value) => typeof value === 'string' && /^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(value),
  enum: (value) => typeof value === 'string' && /^[A-Z_]+$/.test(value),
};

/** Every field of the table is there with its type, and no field the table does not name. */
function expectFields(value: unknown, fields: Fields, path = 'body'): void {
  expect(value, path).toBeTypeOf('object');
  expect(Object.keys(value as object).sort(), path).toEqual(Object.keys(fields).sort());
  for (const [name, type] of Object.entries(fields)) {
    const field = (value as Record<string, unknown>)[name];
    if (typeof type === 'object') expectFields(field, type, `${path}.${name}`);
    else expect(is[type](field), `${path}.${name} = ${JSON.stringify(field)} should be ${type}`).toBe(true);
  }
}

const fileRef: Fields = { id: 'integer', file: 'string' };

const texture: Fields = {
  id: 'integer',
  light_theme_image_id: 'integer',
  dark_theme_image_id: 'integer',
  light_theme_image: fileRef,
  dark_theme_image: fileRef,
  ...Object.fromEntries(['icon_x', 'icon_y', 'icon_width', 'icon_height'].map((name) => [name, 'number'])),
  icon_visible: 'boolean',
  light_theme_text_color: 'string',
  dark_theme_text_color: 'string',
  name_font_size: 'integer',
  ...Object.fromEntries(['name_x', 'name_y', 'name_width', 'name_height'].map((name) => [name, 'number'])),
  name_visible: 'boolean',
  class_name_font_size: 'integer',
  class_name_visible: 'boolean',
  ...Object.fromEntries(
    ['class_name_x', 'class_name_y', 'class_name_width', 'class_name_height', 'width', 'height'].map((name) => [
      name,
      'number',
    ]),
  ),
  light_class_name_color: 'string',
  dark_class_name_color: 'string',
  is_text_in_center_without_logo: 'boolean',
};

const classConf: Fields = {
  id: 'integer',
  name: 'string',
  description: 'string',
  library_id: 'integer',
  class_type: 'enum',
  icon: 'string',
  figure_type: 'string',
  texture_id: 'integer',
  texture,
};

const whiteboardArchive: Fields = {
  id: 'integer',
  name: 'string',
  description: 'string',
  author_id: 'integer',
  organization_id: 'integer',
  in_the_archive: 'boolean',
  mini_drawing_id: 'integer',
};

const whiteboardList: Fields = {
  ...whiteboardArchive,
  created_at: 'date-time',
  updated_at: 'date-time',
  author: { id: 'integer', email: 'e-mail', first_name: 'string', organization_id: 'organization id' },
  organization: { id: 'integer', name: 'string', rate_id: 'integer' },
  mini_drawing: fileRef,
};

const slide: Fields = {
  id: 'integer',
  data_stream_id: 'integer',
  author_id: 'integer',
  order: 'integer',
  name: 'string',
  description: 'string',
  connections_is_used: 'boolean',
  enable_camera: 'boolean',
  camera_x1: 'number',
  camera_y1: 'number',
  camera_x2: 'number',
  camera_y2: 'number',
  enable_description: 'boolean',
  data_stream: {
    id: 'integer',
    name: 'string',
    icon: 'string',
    color: 'string',
    author_id: 'integer',
    whiteboard_id: 'integer',
  },
};

const membership: Fields = {
  id: 'integer',
  user_id: 'integer',
  organization_id: 'integer',
  role: 'enum',
  last_activity: 'date-time',
  organization: { id: 'integer', name: 'string' },
  user: {
    id: 'integer',
    email: 'e-mail',
    first_name: 'string',
    is_active: 'boolean',
    is_admin: 'boolean',
    organization_id: 'organization id',
  },
};

/**
 * The five operations legacy-v1-interface.md specifies in full, checked field by field against its
 * tables: every field present, no other, each of the type the table gives. Called inside a
 * `describe`, with the server the checks run against (once it is started).
 */
export function legacyContract(
  running: () => Pick<TestServer, 'url' | 'keys'> & Pick<GatewayProcess, 'graphql'>,
): void {
  it('Get Library Class: GET /api/library/view/v1/class-conf/{library_class_id}/, with its texture and both file references', async () => {
    const { data } = await running().graphql(
      '{ classConfs(first: 1, filter: { textureId: { gt: 0 } }) { edges { node { rowId textureId texture { lightThemeImage { file } } } } } }',
    );
    const expected = data!.classConfs.edges[0].node;
    const response = await rest(running(), 'GET', `/api/library/view/v1/class-conf/${expected.rowId}/`);
    expect(response.status).toBe(200);
    expectFields(response.body, classConf);
    expect([response.body.id, response.body.texture_id, response.body.texture.id]).toEqual([
      expected.rowId,
      expected.textureId,
      expected.textureId,
    ]);
    expect(response.body.texture.light_theme_image.file).toBe(expected.texture.lightThemeImage.file);
  });

  it('Whiteboard List: GET /api/whiteboard/v1/, the full list form of every board not in the archive', async () => {
    const { data } = await running().graphql(
      '{ whiteboards(first: 100, filter: { inTheArchive: { eq: false } }) { totalCount edges { node { rowId } } } }',
    );
    const response = await rest(running(), 'GET', '/api/whiteboard/v1/');
    expect(response.status).toBe(200);
    expect(response.body.map((board: { id: number }) => board.id)).toEqual(
      data!.whiteboards.edges.map((edge: { node: { rowId: number } }) => edge.node.rowId),
    );
    expect(response.headers.get('x-total-count')).toBe(String(data!.whiteboards.totalCount));
    for (const board of response.body) expectFields(board, whiteboardList, `board ${board.id}`);
  });

  it('Whiteboard Data Stream Slide List: GET /api/whiteboard/v1/data-stream-slide/, each slide with its data stream', async () => {
    const response = await rest(running(), 'GET', '/api/whiteboard/v1/data-stream-slide/');
    expect(response.status).toBe(200);
    expect(response.body.length).toBeGreaterThan(0);
    for (const row of response.body) {
      expectFields(row, slide, `slide ${row.id}`);
      expect(row.data_stream.id).toBe(row.data_stream_id);
    }
  });

  it('Archive: PUT /api/whiteboard/v1/{whiteboard_id}/archive/ answers the seven fields of the archive form', async () => {
    const response = await rest(running(), 'PUT', '/api/whiteboard/v1/1/archive/');
    expect(response.status).toBe(200);
    expectFields(response.body, whiteboardArchive);
    expect(response.body).toMatchObject({ id: 1, in_the_archive: true });
    const { data } = await running().graphql('{ whiteboard(rowId: 1) { inTheArchive } }');
    expect(data!.whiteboard.inTheArchive).toBe(true);
  });

  it('User-organization link list: GET /api/users/control/user-organization/v1/, with organization and user', async () => {
    const response = await rest(running(), 'GET', '/api/users/control/user-organization/v1/');
    expect(response.status).toBe(200);
    expect(response.body.length).toBeGreaterThan(0);
    for (const link of response.body) {
      expectFields(link, membership, `link ${link.id}`);
      expect([link.user.id, link.organization.id]).toEqual([link.user_id, link.organization_id]);
    }
  });

  it('answers 403 and 422 where the legacy document lists them', async () => {
    for (const [method, path] of [
      ['GET', '/api/library/view/v1/class-conf/abc/'],
      ['PUT', '/api/whiteboard/v1/abc/archive/'],
    ]) {
      expect((await rest(running(), method, path, { key: null })).status).toBe(403);
      expect((await rest(running(), method, path)).status).toBe(422);
    }
    expect((await rest(running(), 'PUT', '/api/whiteboard/v1/2/archive/', { key: running().keys.viewer })).status).toBe(
      403,
    );
  });
}
