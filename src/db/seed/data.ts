// The demo data set as plain tables; ./index.ts walks them in a fixed order. Rows name each other by
// key (a user, file, class, object, connection …); the walker turns keys into the ids the database gives.
import type {
  ActionMethod,
  ClassConfAttributeType,
  DataStreamConnectionDirection,
  HighlightOperand,
  LibraryClassType,
  LibraryPublishedStatus,
  ObjectConnectionDirection,
  ObjectConnectionShape,
  ObjectConnectionStyle,
  RateCode,
  Role,
} from '../../generated/prisma/enums.js';

/**
 * Every row's createdAt (and updatedAt) is this instant plus one step per row, in insertion order;
 * the odd milliseconds make every timestamp carry some, as a legacy database's do.
 */
export const clock = { start: '2026-01-05T09:00:00.125Z', stepMs: 10 * 60_000 + 7 };

export const rates: { code: RateCode; name: string; maxUsers: number | null; maxWhiteboards: number | null }[] = [
  { code: 'FREE', name: 'Free', maxUsers: 3, maxWhiteboards: 3 },
  { code: 'STANDARD', name: 'Standard', maxUsers: 10, maxWhiteboards: 25 },
  { code: 'PROFESSIONAL', name: 'Professional', maxUsers: 50, maxWhiteboards: 250 },
  { code: 'ENTERPRISE', name: 'Enterprise', maxUsers: null, maxWhiteboards: null },
];

export const organizations = {
  acme: { name: 'Acme Robotics', rate: 'PROFESSIONAL' as RateCode },
  globex: { name: 'Globex Logistics', rate: 'STANDARD' as RateCode },
};
export type OrgKey = keyof typeof organizations;

interface UserRow {
  email: string;
  firstName: string;
  lastName: string;
  isAdmin: boolean;
  isActive: boolean;
  /** Role per organization; the first one is the user's active organization. */
  roles: Partial<Record<OrgKey, Role>>;
}
const user = (
  email: string,
  firstName: string,
  lastName: string,
  roles: UserRow['roles'],
  flags: Partial<UserRow> = {},
): UserRow => ({ email, firstName, lastName, roles, isAdmin: false, isActive: true, ...flags });

export const users = {
  owner: user('olivia.owner@acme.example', 'Olivia', 'Owner', { acme: 'OWNER' }),
  admin: user('adam.admin@acme.example', 'Adam', 'Admin', { acme: 'ADMIN' }),
  /** Belongs to both organizations: MEMBER in Acme, ADMIN in Globex. */
  member: user('mia.member@acme.example', 'Mia', 'Member', { acme: 'MEMBER', globex: 'ADMIN' }),
  viewer: user('victor.viewer@acme.example', 'Victor', 'Viewer', { acme: 'VIEWER' }),
  globexOwner: user('gustav.owner@globex.example', 'Gustav', 'Owner', { globex: 'OWNER' }),
  globexMember: user('greta.member@globex.example', 'Greta', 'Member', { globex: 'MEMBER' }),
  inactive: user('ivan.inactive@globex.example', 'Ivan', 'Inactive', { globex: 'VIEWER' }, { isActive: false }),
  /** Platform administrator, member of no organization. */
  platformAdmin: user('root@platform.example', 'Petra', 'Platform', {}, { isAdmin: true }),
  globexAdmin: user('gloria.admin@globex.example', 'Gloria', 'Admin', { globex: 'ADMIN' }),
  globexViewer: user('vera.viewer@globex.example', 'Vera', 'Viewer', { globex: 'VIEWER' }),
  /** Belongs to both organizations with Globex active: the other one, seen from Acme. */
  both: user('bea.both@globex.example', 'Bea', 'Both', { globex: 'MEMBER', acme: 'VIEWER' }),
  /** Left Acme for Globex: the author of Acme rows whom Acme's own members no longer see. */
  former: user('frank.former@globex.example', 'Frank', 'Former', { globex: 'MEMBER' }),
};
export type UserKey = keyof typeof users;

/** tokenHash is the SHA-256 hex digest of token; the plain tokens are kept here so tests can accept the invites. */
export const invites: {
  key: string;
  email: string;
  org: OrgKey;
  role: Role;
  by: UserKey;
  token: string;
  expiresAt: string;
  acceptedAt?: string;
}[] = [
  {
    key: 'pending',
    email: 'nina.newcomer@acme.example',
    org: 'acme',
    role: 'MEMBER',
    by: 'owner',
    token: 'demo-invite-pending',
    expiresAt: '2030-01-01T00:00:00Z',
  },
  {
    key: 'expired',
    email: 'eric.expired@acme.example',
    org: 'acme',
    role: 'VIEWER',
    by: 'admin',
    token: 'demo-invite-expired',
    expiresAt: '2026-01-12T09:00:00Z',
  },
  {
    key: 'accepted',
    email: 'mia.member@acme.example',
    org: 'globex',
    role: 'ADMIN',
    by: 'globexOwner',
    token: 'demo-invite-accepted',
    expiresAt: '2030-01-01T00:00:00Z',
    acceptedAt: '2026-01-06T10:00:00Z',
  },
];

export const files: { key: string; org: OrgKey; by: UserKey; file: string; contentType: string; size: number }[] = [
  {
    key: 'serverLight',
    org: 'acme',
    by: 'owner',
    file: 'demo/texture-server-light.png',
    contentType: 'image/png',
    size: 18_432,
  },
  {
    key: 'serverDark',
    org: 'acme',
    by: 'owner',
    file: 'demo/texture-server-dark.png',
    contentType: 'image/png',
    size: 18_904,
  },
  {
    key: 'databaseLight',
    org: 'acme',
    by: 'owner',
    file: 'demo/texture-database-light.png',
    contentType: 'image/png',
    size: 15_210,
  },
  {
    key: 'databaseDark',
    org: 'acme',
    by: 'owner',
    file: 'demo/texture-database-dark.png',
    contentType: 'image/png',
    size: 15_377,
  },
  {
    key: 'platformMini',
    org: 'acme',
    by: 'owner',
    file: 'demo/board-production-platform.png',
    contentType: 'image/png',
    size: 96_512,
  },
  {
    key: 'pipelineMini',
    org: 'acme',
    by: 'admin',
    file: 'demo/board-data-pipeline.png',
    contentType: 'image/png',
    size: 81_020,
  },
  {
    key: 'truckLight',
    org: 'globex',
    by: 'globexOwner',
    file: 'demo/texture-truck-light.png',
    contentType: 'image/png',
    size: 12_800,
  },
  {
    key: 'truckDark',
    org: 'globex',
    by: 'globexOwner',
    file: 'demo/texture-truck-dark.png',
    contentType: 'image/png',
    size: 12_944,
  },
  {
    key: 'warehouseLight',
    org: 'globex',
    by: 'globexOwner',
    file: 'demo/texture-warehouse-light.svg',
    contentType: 'image/svg+xml',
    size: 4_096,
  },
  {
    key: 'networkMini',
    org: 'globex',
    by: 'globexOwner',
    file: 'demo/board-distribution-network.png',
    contentType: 'image/png',
    size: 102_400,
  },
  {
    key: 'globexPlatformMini',
    org: 'globex',
    by: 'both',
    file: 'demo/globex/board-production-platform.png',
    contentType: 'image/png',
    size: 96_513,
  },
];

// ---------------------------------------------------------------- libraries

/** The layout of a texture drawn as a card: icon top left, name and class name beside it. */
const card = {
  iconX: 8,
  iconY: 8,
  iconWidth: 32,
  iconHeight: 32,
  iconVisible: true,
  lightThemeTextColor: '#111827',
  darkThemeTextColor: '#F9FAFB',
  nameFontSize: 14,
  nameX: 48,
  nameY: 8,
  nameWidth: 144,
  nameHeight: 20,
  nameVisible: true,
  classNameFontSize: 11,
  classNameVisible: true,
  classNameX: 48,
  classNameY: 30,
  classNameWidth: 144,
  classNameHeight: 14,
  width: 200,
  height: 56,
  lightClassNameColor: '#6B7280',
  darkClassNameColor: '#9CA3AF',
  isTextInCenterWithoutLogo: false,
};
export type Texture = typeof card & { key: string; name: string; light: string | null; dark: string | null };

/** [code, name, type, required?, choices?] */
type Attribute = [code: string, name: string, type: ClassConfAttributeType, required?: boolean, choices?: string[]];
interface Class {
  key: string;
  name: string;
  description: string;
  type: LibraryClassType;
  icon: string;
  figure: string;
  texture?: string;
  attributes: Attribute[];
}
interface LibraryRow {
  key: string;
  org: OrgKey;
  by: UserKey;
  name: string;
  description: string;
  status: LibraryPublishedStatus;
  textures: Texture[];
  classes: Class[];
}

export const libraries: LibraryRow[] = [
  {
    key: 'infra',
    org: 'acme',
    by: 'owner',
    name: 'Infrastructure',
    description: 'Servers, databases and the people who run them.',
    status: 'PUBLISHED',
    textures: [
      { ...card, key: 'server', name: 'Server card', light: 'serverLight', dark: 'serverDark' },
      {
        ...card,
        key: 'database',
        name: 'Database drum',
        light: 'databaseLight',
        dark: 'databaseDark',
        width: 120,
        height: 120,
        iconX: 44,
        iconY: 16,
        nameX: 10,
        nameY: 70,
        nameWidth: 100,
        classNameX: 10,
        classNameY: 94,
        classNameWidth: 100,
        nameFontSize: 13,
      },
    ],
    classes: [
      {
        key: 'server',
        name: 'Server',
        description: 'A physical or virtual host.',
        type: 'SYSTEM',
        icon: 'server',
        figure: 'rectangle',
        texture: 'server',
        attributes: [
          ['hostname', 'Host name', 'STRING', true],
          ['cpuCores', 'CPU cores', 'INTEGER'],
          ['memoryGb', 'Memory (GB)', 'FLOAT'],
          ['production', 'In production', 'BOOLEAN'],
          ['commissioned', 'Commissioned on', 'DATE'],
          ['environment', 'Environment', 'CHOICE', true, ['dev', 'staging', 'prod']],
          ['notes', 'Notes', 'TEXT'],
        ],
      },
      {
        key: 'database',
        name: 'Database',
        description: 'A store of records.',
        type: 'DATA',
        icon: 'database',
        figure: 'cylinder',
        texture: 'database',
        attributes: [
          ['engine', 'Engine', 'CHOICE', true, ['postgres', 'mysql', 'sqlite']],
          ['sizeGb', 'Size (GB)', 'FLOAT'],
          ['replicated', 'Replicated', 'BOOLEAN'],
        ],
      },
      {
        key: 'step',
        name: 'Process step',
        description: 'One step of a procedure.',
        type: 'PROCESS',
        icon: 'gear',
        figure: 'rounded-rectangle',
        attributes: [
          ['owner', 'Owner', 'STRING'],
          ['durationMinutes', 'Duration (minutes)', 'INTEGER'],
        ],
      },
      {
        key: 'operator',
        name: 'Operator',
        description: 'A person who acts on the system.',
        type: 'ACTOR',
        icon: 'user',
        figure: 'person',
        attributes: [['team', 'Team', 'STRING']],
      },
      {
        key: 'rack',
        name: 'Rack',
        description: 'Holds servers.',
        type: 'CONTAINER',
        icon: 'box',
        figure: 'frame',
        attributes: [
          ['location', 'Location', 'STRING'],
          ['units', 'Height units', 'INTEGER'],
        ],
      },
    ],
  },
  {
    key: 'iot',
    org: 'acme',
    by: 'former',
    name: 'IoT sketches',
    description: 'Work in progress.',
    status: 'DRAFT',
    textures: [],
    classes: [
      {
        key: 'sensor',
        name: 'Sensor',
        description: 'Measures one quantity.',
        type: 'OBJECT',
        icon: 'thermometer',
        figure: 'circle',
        attributes: [
          ['unit', 'Unit', 'STRING'],
          ['threshold', 'Alarm threshold', 'FLOAT'],
        ],
      },
    ],
  },
  {
    key: 'logistics',
    org: 'globex',
    by: 'globexOwner',
    name: 'Logistics',
    description: 'Sites, vehicles and goods.',
    status: 'PUBLISHED',
    textures: [
      {
        ...card,
        key: 'truck',
        name: 'Truck card',
        light: 'truckLight',
        dark: 'truckDark',
        iconVisible: false,
        isTextInCenterWithoutLogo: true,
        nameX: 8,
        nameWidth: 184,
        classNameX: 8,
        classNameWidth: 184,
      },
      {
        ...card,
        key: 'warehouse',
        name: 'Warehouse frame',
        light: 'warehouseLight',
        dark: null,
        width: 320,
        height: 200,
        classNameVisible: false,
        nameFontSize: 16,
        lightThemeTextColor: '#1E3A8A',
      },
    ],
    classes: [
      {
        key: 'warehouse',
        name: 'Warehouse',
        description: 'A site where goods are stored.',
        type: 'CONTAINER',
        icon: 'warehouse',
        figure: 'frame',
        texture: 'warehouse',
        attributes: [
          ['city', 'City', 'STRING', true],
          ['capacity', 'Capacity (pallets)', 'INTEGER'],
          ['opened', 'Opened on', 'DATE'],
        ],
      },
      {
        key: 'truck',
        name: 'Truck',
        description: 'A vehicle of the fleet.',
        type: 'OBJECT',
        icon: 'truck',
        figure: 'rectangle',
        texture: 'truck',
        attributes: [
          ['plate', 'Licence plate', 'STRING', true],
          ['payloadTons', 'Payload (t)', 'FLOAT'],
          ['refrigerated', 'Refrigerated', 'BOOLEAN'],
          ['status', 'Status', 'CHOICE', false, ['idle', 'en route', 'maintenance']],
        ],
      },
      {
        key: 'shipment',
        name: 'Shipment',
        description: 'Goods moving together.',
        type: 'DATA',
        icon: 'package',
        figure: 'document',
        attributes: [
          ['reference', 'Reference', 'STRING', true],
          ['weightKg', 'Weight (kg)', 'FLOAT'],
          ['due', 'Due on', 'DATE'],
        ],
      },
      {
        key: 'dispatcher',
        name: 'Dispatcher',
        description: 'Plans the routes.',
        type: 'ACTOR',
        icon: 'headset',
        figure: 'person',
        attributes: [['shift', 'Shift', 'CHOICE', true, ['day', 'night']]],
      },
    ],
  },
  {
    key: 'customs',
    org: 'globex',
    by: 'member',
    name: 'Customs (draft)',
    description: 'Border formalities.',
    status: 'DRAFT',
    textures: [],
    classes: [
      {
        key: 'customsCheck',
        name: 'Customs check',
        description: '',
        type: 'PROCESS',
        icon: 'stamp',
        figure: 'diamond',
        attributes: [
          ['country', 'Country', 'CHOICE', true, ['NL', 'BE', 'DE']],
          ['cleared', 'Cleared', 'BOOLEAN'],
        ],
      },
    ],
  },
];

// ---------------------------------------------------------------- whiteboards

/** Strings a legacy database really holds, which both read paths must answer alike. */
const legacyText = {
  quoted: 'Quote " apostrophe \' backslash \\ slash / end',
  control: 'Line one\nline two\r\n\ttabbed, a bell \u0007, an escape \u001b and a unit separator \u001f.',
  markup: '</script><script>alert("x")</script> & <b>bold</b>',
  long: `A long description, as boards collect them. ${'Every hop of a read is checked for its organization. '.repeat(80)}`,
};

type Value = string | number | boolean;
/** An object; `at` lists where it is drawn as [x, y, width, height, zIndex]; `values` maps attribute codes to values. */
interface ObjectRow {
  key: string;
  name: string;
  class?: string;
  by?: UserKey;
  description?: string;
  at: [number, number, number, number, number][];
  values?: Record<string, Value>;
}
interface ConnectionRow {
  key: string;
  from: string;
  to: string;
  name: string;
  color: string;
  direction: ObjectConnectionDirection;
  shape: ObjectConnectionShape;
  style: ObjectConnectionStyle;
}
/** A slide: camera is [x1, y1, x2, y2] (enables the camera); a non-empty description enables the description. */
interface SlideRow {
  name: string;
  description: string;
  camera?: [number, number, number, number];
  connections?: boolean;
}
interface StreamRow {
  key: string;
  name: string;
  description: string;
  icon: string;
  color: string;
  by: UserKey;
  steps: [connection: string, direction: DataStreamConnectionDirection, description: string][];
  slides: SlideRow[];
}
interface HighlightRow {
  name: string;
  color: string;
  class: string;
  attribute: string;
  operand: HighlightOperand;
  value: string;
  isActive?: boolean;
}
interface BoardRow {
  key: string;
  org: OrgKey;
  by: UserKey;
  name: string;
  description: string;
  archived?: boolean;
  mini?: string;
  objects: ObjectRow[];
  connections: ConnectionRow[];
  relations: [parent: string, child: string][];
  streams: StreamRow[];
  groups: { name: string; isActive: boolean; highlights: HighlightRow[] }[];
  highlights: HighlightRow[];
}

const conn = (
  key: string,
  name: string,
  color: string,
  direction: ObjectConnectionDirection,
  shape: ObjectConnectionShape,
  style: ObjectConnectionStyle,
): ConnectionRow => {
  const [from, to] = key.split('>') as [string, string];
  return { key, from, to, name, color, direction, shape, style };
};

export const whiteboards: BoardRow[] = [
  {
    key: 'platform',
    org: 'acme',
    by: 'owner',
    name: 'Production platform',
    description: 'What serves the customer portal.',
    mini: 'platformMini',
    objects: [
      {
        key: 'rackA1',
        class: 'rack',
        name: 'Rack A1',
        at: [[40, 40, 520, 360, 0]],
        values: { location: 'DC1 / row 3', units: 42 },
      },
      {
        key: 'web01',
        class: 'server',
        name: 'web-01',
        at: [[80, 100, 200, 56, 1]],
        values: {
          hostname: 'web-01.acme.internal',
          cpuCores: 8,
          memoryGb: 32,
          production: true,
          commissioned: '2025-03-14',
          environment: 'prod',
          notes: 'Serves the customer portal.',
        },
      },
      {
        key: 'api01',
        class: 'server',
        name: 'api-01',
        at: [[320, 100, 200, 56, 1]],
        values: {
          hostname: 'api-01.acme.internal',
          cpuCores: 16,
          memoryGb: 64,
          production: true,
          commissioned: '2025-06-02',
          environment: 'prod',
        },
      },
      {
        key: 'ordersDb',
        class: 'database',
        name: 'orders-db',
        description: 'Drawn twice: next to the API and in the storage corner.',
        at: [
          [320, 260, 120, 120, 1],
          [640, 420, 120, 120, 1],
        ],
        values: { engine: 'postgres', sizeGb: 250.5, replicated: true },
      },
      {
        key: 'deploy',
        class: 'step',
        name: 'Blue/green deploy',
        by: 'admin',
        at: [[640, 100, 180, 60, 2]],
        values: { owner: 'Platform team', durationMinutes: 25 },
      },
      {
        key: 'onCall',
        class: 'operator',
        name: 'On-call engineer',
        by: 'member',
        at: [[880, 100, 80, 120, 2]],
        values: { team: 'SRE' },
      },
      {
        key: 'note',
        name: 'Sticky note',
        by: 'viewer',
        description: 'Move api-01 to rack A2 before March.',
        at: [[600, 260, 160, 100, 3]],
      },
    ],
    connections: [
      conn('web01>api01', 'REST', '#2563EB', 'FORWARD', 'STRAIGHT', 'SOLID'),
      conn('api01>ordersDb', 'SQL', '#0F766E', 'BIDIRECTIONAL', 'CURVED', 'DASHED'),
      conn('onCall>deploy', 'triggers', '#9333EA', 'FORWARD', 'ORTHOGONAL', 'DOTTED'),
      conn('deploy>web01', 'rolls out', '#9333EA', 'FORWARD', 'ORTHOGONAL', 'SOLID'),
      conn('deploy>api01', 'rolls out', '#9333EA', 'FORWARD', 'ORTHOGONAL', 'SOLID'),
      conn('note>api01', '', '#A3A3A3', 'NONE', 'STRAIGHT', 'DOTTED'),
    ],
    relations: [
      ['rackA1', 'web01'],
      ['rackA1', 'api01'],
    ],
    streams: [
      {
        key: 'checkout',
        name: 'Checkout request',
        description: 'A customer pays for an order.',
        icon: 'cart',
        color: '#16A34A',
        by: 'owner',
        steps: [
          ['web01>api01', 'FORWARD', 'POST /orders'],
          ['api01>ordersDb', 'FORWARD', 'INSERT the order'],
          ['api01>ordersDb', 'BACKWARD', 'The new order id'],
        ],
        slides: [
          { name: 'The portal', description: 'The request enters through web-01.', camera: [40, 40, 560, 400] },
          {
            name: 'The API',
            description: 'api-01 validates the order and writes it.',
            camera: [300, 80, 560, 400],
            connections: true,
          },
          { name: 'Done', description: '' },
        ],
      },
      {
        key: 'release',
        name: 'Release train',
        description: 'How a new version reaches production.',
        icon: 'rocket',
        color: '#9333EA',
        by: 'admin',
        steps: [
          ['onCall>deploy', 'FORWARD', 'Start the pipeline'],
          ['deploy>web01', 'FORWARD', ''],
          ['deploy>api01', 'FORWARD', ''],
        ],
        slides: [
          { name: 'Trigger', description: 'The on-call engineer starts the deploy.', camera: [620, 80, 980, 240] },
          { name: 'Roll out', description: 'Green servers take the traffic.', connections: true },
          {
            name: 'Verify',
            description: 'Watch the dashboards for ten minutes.',
            camera: [0, 0, 1000, 600],
            connections: true,
          },
        ],
      },
    ],
    groups: [
      {
        name: 'Environments',
        isActive: true,
        highlights: [
          {
            name: 'Production servers',
            color: '#DC2626',
            class: 'server',
            attribute: 'environment',
            operand: 'EQUAL',
            value: 'prod',
          },
          {
            name: 'Large memory',
            color: '#F59E0B',
            class: 'server',
            attribute: 'memoryGb',
            operand: 'GREATER_OR_EQUAL',
            value: '64',
          },
        ],
      },
      {
        name: 'Housekeeping',
        isActive: false,
        highlights: [
          {
            name: 'Not replicated',
            color: '#7C3AED',
            class: 'database',
            attribute: 'replicated',
            operand: 'NOT_EQUAL',
            value: 'true',
          },
          {
            name: 'Without notes',
            color: '#64748B',
            class: 'server',
            attribute: 'notes',
            operand: 'IS_EMPTY',
            value: '',
            isActive: false,
          },
        ],
      },
    ],
    highlights: [
      {
        name: 'Internal hosts',
        color: '#0EA5E9',
        class: 'server',
        attribute: 'hostname',
        operand: 'CONTAINS',
        value: 'acme.internal',
      },
    ],
  },
  {
    key: 'pipeline',
    org: 'acme',
    by: 'admin',
    name: 'Data pipeline',
    description: 'From the shop floor to the reports.',
    mini: 'pipelineMini',
    objects: [
      {
        key: 'lineSensor',
        class: 'sensor',
        name: 'Line sensor 4',
        at: [[0, 200, 80, 80, 0]],
        values: { unit: '°C', threshold: 85.5 },
      },
      {
        key: 'ingest',
        class: 'step',
        name: 'Nightly ingest',
        at: [[160, 200, 180, 60, 0]],
        values: { owner: 'Data team', durationMinutes: 45 },
      },
      {
        key: 'etl01',
        class: 'server',
        name: 'etl-01',
        at: [[400, 200, 200, 56, 0]],
        values: {
          hostname: 'etl-01.acme.internal',
          cpuCores: 4,
          memoryGb: 16,
          production: false,
          environment: 'staging',
        },
      },
      {
        key: 'dwh',
        class: 'database',
        name: 'warehouse',
        at: [[680, 180, 120, 120, 0]],
        values: { engine: 'mysql', sizeGb: 1200, replicated: false },
      },
      { key: 'analyst', class: 'operator', name: 'Analyst', at: [[880, 180, 80, 120, 0]], values: { team: 'Finance' } },
    ],
    connections: [
      conn('lineSensor>ingest', 'readings', '#F97316', 'FORWARD', 'STRAIGHT', 'SOLID'),
      conn('ingest>etl01', 'CSV', '#F97316', 'FORWARD', 'STRAIGHT', 'SOLID'),
      conn('etl01>dwh', 'load', '#0F766E', 'FORWARD', 'CURVED', 'SOLID'),
      conn('dwh>analyst', 'queries', '#2563EB', 'BACKWARD', 'ORTHOGONAL', 'DASHED'),
    ],
    relations: [],
    streams: [
      {
        key: 'nightly',
        name: 'Nightly load',
        description: 'Readings of the day into the warehouse.',
        icon: 'moon',
        color: '#1E40AF',
        by: 'admin',
        steps: [
          ['lineSensor>ingest', 'FORWARD', ''],
          ['ingest>etl01', 'FORWARD', 'Files over SFTP'],
          ['etl01>dwh', 'FORWARD', 'Bulk insert'],
        ],
        slides: [
          { name: 'Collect', description: 'Sensors report every minute.', camera: [0, 160, 360, 300] },
          {
            name: 'Transform',
            description: 'etl-01 cleans and joins.',
            camera: [380, 160, 820, 320],
            connections: true,
          },
          { name: 'Load', description: '', connections: true },
        ],
      },
      {
        key: 'reporting',
        name: 'Reporting',
        description: 'Monthly figures.',
        icon: 'chart',
        color: '#CA8A04',
        by: 'former',
        steps: [['dwh>analyst', 'BIDIRECTIONAL', 'Ad hoc queries']],
        slides: [
          { name: 'Ask', description: 'The analyst writes a query.' },
          { name: 'Answer', description: 'The warehouse returns the figures.', camera: [660, 160, 980, 320] },
          { name: 'Publish', description: 'The report goes to the board.' },
        ],
      },
    ],
    groups: [
      {
        name: 'Quality',
        isActive: true,
        highlights: [
          {
            name: 'Slow steps',
            color: '#DC2626',
            class: 'step',
            attribute: 'durationMinutes',
            operand: 'GREATER',
            value: '30',
          },
        ],
      },
    ],
    highlights: [
      {
        name: 'Small databases',
        color: '#22C55E',
        class: 'database',
        attribute: 'sizeGb',
        operand: 'LESS',
        value: '500',
      },
    ],
  },
  {
    key: 'legacy',
    org: 'acme',
    by: 'owner',
    name: 'Legacy datacenter',
    description: 'Decommissioned in 2025.',
    archived: true,
    objects: [
      {
        key: 'mainframe',
        class: 'server',
        name: 'mainframe',
        at: [[100, 100, 200, 56, 0]],
        values: { hostname: 'mf.acme.internal', production: false, commissioned: '1998-09-01', environment: 'prod' },
      },
      {
        key: 'tapes',
        class: 'database',
        name: 'tape library',
        at: [[400, 100, 120, 120, 0]],
        values: { engine: 'sqlite', replicated: false },
      },
    ],
    connections: [conn('mainframe>tapes', 'backup', '#525252', 'FORWARD', 'STRAIGHT', 'DASHED')],
    relations: [],
    streams: [
      {
        key: 'backup',
        name: 'Batch backup',
        description: '',
        icon: 'tape',
        color: '#525252',
        by: 'owner',
        steps: [['mainframe>tapes', 'FORWARD', 'Nightly dump']],
        slides: [
          { name: 'Dump', description: 'At 02:00.' },
          { name: 'Verify', description: '' },
          { name: 'Rotate', description: 'Tapes go off site weekly.', camera: [80, 80, 540, 240] },
        ],
      },
      {
        key: 'restore',
        name: 'Restore drill',
        description: 'Twice a year.',
        icon: 'restore',
        color: '#B91C1C',
        by: 'admin',
        steps: [['mainframe>tapes', 'BACKWARD', 'Read back']],
        slides: [
          { name: 'Pick a tape', description: '' },
          { name: 'Restore', description: 'Into the test partition.', connections: true },
          { name: 'Compare', description: 'Checksums must match.' },
        ],
      },
    ],
    groups: [],
    highlights: [],
  },
  {
    key: 'network',
    org: 'globex',
    by: 'globexOwner',
    name: 'Distribution network',
    description: 'Hubs, depots and the trucks between them.',
    mini: 'networkMini',
    objects: [
      {
        key: 'rotterdam',
        class: 'warehouse',
        name: 'Rotterdam hub',
        at: [[0, 0, 320, 200, 0]],
        values: { city: 'Rotterdam', capacity: 12000, opened: '2019-04-01' },
      },
      {
        key: 'berlin',
        class: 'warehouse',
        name: 'Berlin depot',
        at: [[800, 0, 320, 200, 0]],
        values: { city: 'Berlin', capacity: 3500 },
      },
      {
        key: 'truckNl42',
        class: 'truck',
        name: 'Truck NL-42',
        at: [[40, 60, 200, 56, 1]],
        values: { plate: 'NL-42-GX', payloadTons: 24, refrigerated: false, status: 'en route' },
      },
      {
        key: 'reeferDe7',
        class: 'truck',
        name: 'Reefer DE-7',
        by: 'globexMember',
        at: [[840, 60, 200, 56, 1]],
        values: { plate: 'B-GX-7', payloadTons: 18.5, refrigerated: true, status: 'maintenance' },
      },
      {
        key: 'po1001',
        class: 'shipment',
        name: 'PO-1001',
        by: 'globexMember',
        at: [[40, 130, 120, 50, 2]],
        values: { reference: 'PO-1001', weightKg: 1850.25, due: '2026-01-20' },
      },
      {
        key: 'nightDispatch',
        class: 'dispatcher',
        name: 'Night dispatcher',
        by: 'member',
        at: [[480, 300, 80, 120, 0]],
        values: { shift: 'night' },
      },
    ],
    connections: [
      conn('rotterdam>berlin', 'A12 corridor', '#1D4ED8', 'BIDIRECTIONAL', 'CURVED', 'SOLID'),
      conn('truckNl42>berlin', 'delivers', '#15803D', 'FORWARD', 'STRAIGHT', 'SOLID'),
      conn('reeferDe7>rotterdam', 'returns', '#0891B2', 'FORWARD', 'CURVED', 'DASHED'),
      conn('nightDispatch>truckNl42', 'plans', '#6B7280', 'NONE', 'ORTHOGONAL', 'DOTTED'),
      conn('nightDispatch>reeferDe7', 'plans', '#6B7280', 'NONE', 'ORTHOGONAL', 'DOTTED'),
    ],
    relations: [
      ['rotterdam', 'truckNl42'],
      ['rotterdam', 'po1001'],
      ['berlin', 'reeferDe7'],
    ],
    streams: [
      {
        key: 'inbound',
        name: 'Inbound shipment',
        description: 'PO-1001 from the port to Berlin.',
        icon: 'ship',
        color: '#1D4ED8',
        by: 'globexOwner',
        steps: [
          ['nightDispatch>truckNl42', 'FORWARD', 'Assign the truck'],
          ['truckNl42>berlin', 'FORWARD', 'Drive'],
          ['rotterdam>berlin', 'FORWARD', ''],
        ],
        slides: [
          { name: 'Arrival', description: 'The container lands in Rotterdam.', camera: [0, 0, 320, 200] },
          { name: 'On the road', description: 'NL-42 takes the A12.', camera: [0, 0, 1120, 420], connections: true },
          { name: 'Delivered', description: 'Berlin signs for it.', camera: [800, 0, 1120, 200] },
          { name: 'Invoice', description: '' },
        ],
      },
      {
        key: 'coldChain',
        name: 'Cold chain',
        description: 'Refrigerated goods stay below 4 °C.',
        icon: 'snowflake',
        color: '#0891B2',
        by: 'member',
        steps: [
          ['nightDispatch>reeferDe7', 'FORWARD', ''],
          ['reeferDe7>rotterdam', 'BIDIRECTIONAL', 'Temperature log travels along'],
        ],
        slides: [
          { name: 'Load', description: 'Pre-cool the reefer.' },
          { name: 'Drive', description: 'The log is checked hourly.', connections: true },
          {
            name: 'Unload',
            description: 'Log attached to the delivery note.',
            camera: [0, 0, 400, 260],
            connections: true,
          },
        ],
      },
    ],
    groups: [
      {
        name: 'Fleet status',
        isActive: true,
        highlights: [
          {
            name: 'In maintenance',
            color: '#DC2626',
            class: 'truck',
            attribute: 'status',
            operand: 'EQUAL',
            value: 'maintenance',
          },
          {
            name: 'Reefers',
            color: '#0891B2',
            class: 'truck',
            attribute: 'refrigerated',
            operand: 'EQUAL',
            value: 'true',
          },
          {
            name: 'Small trucks',
            color: '#A3A3A3',
            class: 'truck',
            attribute: 'payloadTons',
            operand: 'LESS_OR_EQUAL',
            value: '20',
            isActive: false,
          },
        ],
      },
    ],
    highlights: [
      {
        name: 'Heavy shipments',
        color: '#EA580C',
        class: 'shipment',
        attribute: 'weightKg',
        operand: 'GREATER',
        value: '1000',
      },
      {
        name: 'Has a due date',
        color: '#4F46E5',
        class: 'shipment',
        attribute: 'due',
        operand: 'IS_NOT_EMPTY',
        value: '',
      },
    ],
  },
  {
    key: 'fleet2025',
    org: 'globex',
    by: 'member',
    name: 'Fleet plan 2025',
    description: 'Superseded by the 2026 plan.',
    archived: true,
    objects: [
      {
        key: 'antwerp',
        class: 'warehouse',
        name: 'Antwerp yard',
        at: [[0, 0, 320, 200, 0]],
        values: { city: 'Antwerp', capacity: 800, opened: '2024-11-15' },
      },
      {
        key: 'truckNl50',
        class: 'truck',
        name: 'Truck NL-50',
        at: [[40, 60, 200, 56, 1]],
        values: { plate: 'NL-50-GX', payloadTons: 26, status: 'idle' },
      },
      {
        key: 'customsNl',
        class: 'customsCheck',
        name: 'Customs NL',
        at: [[480, 60, 120, 120, 0]],
        values: { country: 'NL', cleared: true },
      },
    ],
    connections: [
      conn('antwerp>truckNl50', 'leases', '#15803D', 'FORWARD', 'STRAIGHT', 'SOLID'),
      conn('truckNl50>customsNl', 'crosses', '#B45309', 'FORWARD', 'ORTHOGONAL', 'DASHED'),
    ],
    relations: [['antwerp', 'truckNl50']],
    streams: [
      {
        key: 'leaseReturn',
        name: 'Lease return',
        description: '',
        icon: 'key',
        color: '#15803D',
        by: 'member',
        steps: [['antwerp>truckNl50', 'BACKWARD', 'Back to the lessor']],
        slides: [
          { name: 'Inspect', description: 'Damage report.' },
          { name: 'Hand over', description: '' },
          { name: 'Close', description: 'Deposit refunded.', camera: [0, 0, 320, 200] },
        ],
      },
      {
        key: 'border',
        name: 'Border crossing',
        description: 'Paperwork at the Dutch border.',
        icon: 'stamp',
        color: '#B45309',
        by: 'globexOwner',
        steps: [['truckNl50>customsNl', 'FORWARD', '']],
        slides: [
          { name: 'Declare', description: 'Send the declaration ahead.', connections: true },
          { name: 'Inspect', description: 'Random checks.' },
          { name: 'Cleared', description: '', camera: [440, 40, 640, 200] },
        ],
      },
    ],
    groups: [
      {
        name: 'Paperwork',
        isActive: false,
        highlights: [
          {
            name: 'Cleared',
            color: '#16A34A',
            class: 'customsCheck',
            attribute: 'cleared',
            operand: 'EQUAL',
            value: 'true',
          },
        ],
      },
    ],
    highlights: [],
  },
  {
    key: 'globexPlatform',
    org: 'globex',
    by: 'both',
    // Named almost as Acme's board is, with the values a legacy database holds: a leak or a mangled value shows.
    name: 'Production Platform',
    description: legacyText.long,
    mini: 'globexPlatformMini',
    objects: [
      {
        key: 'oddShipment',
        class: 'shipment',
        name: legacyText.quoted,
        description: legacyText.control,
        at: [
          [1e20, 5e-324, Number.MAX_VALUE, 0.1, 2_147_483_647],
          [-1e-7, -1.5e300, 3, 4, -1],
        ],
        values: { reference: legacyText.markup, weightKg: 1e20, due: '0999-12-31' },
      },
      {
        key: 'oddTruck',
        class: 'truck',
        name: 'Truck 🦄 NL-1',
        by: 'former',
        at: [[0, 0, 200, 56, 0]],
        values: { plate: legacyText.quoted, payloadTons: 5e-324, status: 'idle' },
      },
    ],
    connections: [conn('oddShipment>oddTruck', legacyText.markup, '#000000', 'FORWARD', 'STRAIGHT', 'SOLID')],
    relations: [['oddTruck', 'oddShipment']],
    streams: [
      {
        key: 'oddStream',
        name: legacyText.quoted,
        description: legacyText.control,
        icon: '🦄',
        color: '#FF00FF',
        by: 'former',
        steps: [['oddShipment>oddTruck', 'FORWARD', legacyText.markup]],
        slides: [
          {
            name: legacyText.markup,
            description: legacyText.long,
            camera: [5e-324, 1e20, 1.2345678901234568e-300, -0.5],
          },
          { name: 'Emoji 🦄 and “typographic” quotes', description: legacyText.control, connections: true },
        ],
      },
    ],
    groups: [],
    highlights: [
      {
        name: legacyText.quoted,
        color: '#000000',
        class: 'shipment',
        attribute: 'weightKg',
        operand: 'GREATER',
        value: '1e20',
      },
    ],
  },
];

/** Objects published to their organization's repository. */
export const repository: { object: string; by: UserKey; name: string; description: string }[] = [
  {
    object: 'web01',
    by: 'owner',
    name: 'Standard web server',
    description: '8 cores, 32 GB, behind the load balancer.',
  },
  { object: 'ordersDb', by: 'admin', name: 'Orders database', description: 'Replicated PostgreSQL.' },
  { object: 'reeferDe7', by: 'globexOwner', name: 'Refrigerated truck', description: 'Template for the reefer fleet.' },
  { object: 'deploy', by: 'former', name: 'Blue/green deploy', description: 'Published before Frank left for Globex.' },
];

/** Action log entries; `entity` is [type, key of the seeded row] or [type, id] for a row that no longer exists. */
export const actions: {
  by: UserKey;
  org: OrgKey | null;
  method: ActionMethod;
  entity: [type: 'Library' | 'Whiteboard' | 'WhiteboardObject' | 'DataStream' | 'Rate', ref: string | number];
}[] = [
  { by: 'platformAdmin', org: null, method: 'UPDATE', entity: ['Rate', 'ENTERPRISE'] },
  { by: 'owner', org: 'acme', method: 'CREATE', entity: ['Library', 'infra'] },
  { by: 'owner', org: 'acme', method: 'CREATE', entity: ['Whiteboard', 'platform'] },
  { by: 'admin', org: 'acme', method: 'UPDATE', entity: ['WhiteboardObject', 'deploy'] },
  { by: 'member', org: 'acme', method: 'DELETE', entity: ['WhiteboardObject', 1000] },
  { by: 'owner', org: 'acme', method: 'UPDATE', entity: ['Whiteboard', 'legacy'] },
  { by: 'globexOwner', org: 'globex', method: 'CREATE', entity: ['Whiteboard', 'network'] },
  { by: 'member', org: 'globex', method: 'CREATE', entity: ['DataStream', 'coldChain'] },
];
