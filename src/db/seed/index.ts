// Loads the demo data set of ./data.ts in one transaction: one INSERT per table, rows in a fixed order, so a fresh
// database always gets the same ids; timestamps come from a fixed clock.
import { createHash } from 'node:crypto';
import { hashSecret } from '../../auth/api-keys.js';
import type { ModelName } from '../../auth/tenancy.js';
import type { Prisma } from '../index.js';
import type { Prisma as Client } from '../../generated/prisma/client.js';
import type { ClassConfAttributeType } from '../../generated/prisma/enums.js';
import * as data from './data.js';
import { demoKeyHolders, issueDemoKeys, type DemoKeys } from './keys.js';

type Tx = Client.TransactionClient;
// The models of the graph (the others, such as file chunks and rate-limit buckets, hold no demo data), but for
// webhook endpoints: a secret is sealed under the operator's key (WEBHOOK_ENCRYPTION_KEY), which the demo data cannot hold.
type Delegate = Uncapitalize<Exclude<ModelName, 'WebhookEndpoint'>>;

const boards = data.whiteboards;
const objects = boards.flatMap((b) => b.objects);
const streams = boards.flatMap((b) => b.streams);
const classes = data.libraries.flatMap((l) => l.classes);
const users = Object.entries(data.users) as [data.UserKey, (typeof data.users)[data.UserKey]][];
const byKey = <T extends { key: string }, R>(rows: T[], f: (row: T) => R) =>
  Object.fromEntries(rows.map((row) => [row.key, f(row)]));

/** Stable facts about the demo data set, for tests and docs. Keys are the keys of ./data.ts. */
export const demo = {
  organizations: data.organizations,
  /** users.owner / admin / member / viewer are in Acme (member is also ADMIN in Globex); globexOwner, globexMember, inactive in Globex; platformAdmin in none. */
  users: data.users,
  invites: byKey(data.invites, (i) => ({
    email: i.email,
    organization: i.org,
    role: i.role,
    token: i.token,
    accepted: !!i.acceptedAt,
  })),
  libraries: byKey(data.libraries, (l) => ({
    name: l.name,
    organization: l.org,
    status: l.status,
    classes: l.classes.map((c) => c.name),
  })),
  whiteboards: byKey(boards, (b) => ({
    name: b.name,
    organization: b.org,
    archived: !!b.archived,
    objects: b.objects.length,
  })),
  /** Rows per model after seeding a fresh database. */
  counts: {
    rate: data.rates.length,
    organization: Object.keys(data.organizations).length,
    user: users.length,
    userOrganization: users.flatMap(([, u]) => Object.keys(u.roles)).length,
    userInvite: data.invites.length,
    apiKey: Object.keys(demoKeyHolders).length,
    userActionLog: data.actions.length,
    file: data.files.length,
    library: data.libraries.length,
    classTexture: data.libraries.flatMap((l) => l.textures).length,
    classConf: classes.length,
    classConfAttribute: classes.flatMap((c) => c.attributes).length,
    whiteboard: boards.length,
    whiteboardObject: objects.length,
    whiteboardObjectInstance: objects.flatMap((o) => o.at).length,
    whiteboardObjectAttribute: objects.flatMap((o) => Object.keys(o.values ?? {})).length,
    whiteboardObjectConnection: boards.flatMap((b) => b.connections).length,
    whiteboardObjectRelation: boards.flatMap((b) => b.relations).length,
    dataStream: streams.length,
    slide: streams.flatMap((s) => s.slides).length,
    dataStreamConnection: streams.flatMap((s) => s.steps).length,
    whiteboardHighlightGroup: boards.flatMap((b) => b.groups).length,
    whiteboardHighlight: boards.flatMap((b) => [...b.groups.flatMap((g) => g.highlights), ...b.highlights]).length,
    objectRepositoryEntry: data.repository.length,
  } satisfies Record<Delegate, number>,
};

/** Whether `secret` is a key of the demo owner that is not revoked (DEMO_API_KEY on data loaded before). */
export async function isDemoKey(prisma: Prisma, secret: string): Promise<boolean> {
  const count = await prisma.apiKey.count({
    where: { secretHash: hashSecret(secret), revokedAt: null, user: { email: data.users.owner.email } },
  });
  return count > 0;
}

export async function isEmpty(prisma: Prisma): Promise<boolean> {
  return (await prisma.organization.count()) === 0;
}

/** Rows per model, keyed like demo.counts. */
export async function countRows(prisma: Prisma): Promise<Record<Delegate, number>> {
  const counts = {} as Record<Delegate, number>;
  for (const key of Object.keys(demo.counts) as Delegate[]) {
    counts[key] = await (prisma[key] as unknown as { count(): Promise<number> }).count();
  }
  return counts;
}

/** Empties every table of the schema (the @@map names) and restarts the id sequences. */
export async function truncateAll(prisma: Prisma): Promise<void> {
  const tables = await prisma.$queryRawUnsafe<{ name: string }[]>(
    `SELECT tablename AS name FROM pg_tables WHERE schemaname = current_schema() AND tablename <> '_prisma_migrations' ORDER BY tablename`,
  );
  if (tables.length === 0) return;
  const list = tables.map((t) => `"${t.name.replace(/"/g, '""')}"`).join(', ');
  await prisma.$executeRawUnsafe(`TRUNCATE ${list} RESTART IDENTITY CASCADE`);
}

/** Loads the demo data and issues a key to each demo role; returns their secrets (the owner's is `ownerSecret` when given). */
export async function seedDemo(prisma: Prisma, ownerSecret?: string): Promise<DemoKeys> {
  return prisma.$transaction(
    async (tx) => {
      await load(tx);
      return issueDemoKeys(tx, ownerSecret);
    },
    { maxWait: 10_000, timeout: 120_000 },
  );
}

/** Ids the database gave to the rows of one table, by the keys the data set uses for them. */
class Ids {
  private readonly ids = new Map<string, number>();
  constructor(private readonly what: string) {}
  add(keys: string[], rows: { id: number }[]): void {
    if (rows.length !== keys.length)
      throw new Error(`seed: ${this.what}: inserted ${rows.length} rows, expected ${keys.length}`);
    rows.forEach((row, i) => {
      if (i > 0 && row.id <= rows[i - 1]!.id) throw new Error(`seed: ${this.what}: ids not in insertion order`);
      if (this.ids.has(keys[i]!)) throw new Error(`seed data: duplicate ${this.what} "${keys[i]}"`);
      this.ids.set(keys[i]!, row.id);
    });
  }
  get(key: string): number {
    const id = this.ids.get(key);
    if (id === undefined) throw new Error(`seed data: unknown ${this.what} "${key}"`);
    return id;
  }
}

/** The value columns of an attribute value, chosen by the attribute's type. */
function valueColumns(
  type: ClassConfAttributeType,
  choices: string[],
  value: string | number | boolean,
  where: string,
) {
  const fail = () => new Error(`seed data: ${where}: ${JSON.stringify(value)} is not a ${type}`);
  switch (type) {
    case 'STRING':
    case 'TEXT':
    case 'CHOICE':
      if (typeof value !== 'string' || (type === 'CHOICE' && !choices.includes(value))) throw fail();
      return { valueStr: value };
    case 'INTEGER':
    case 'FLOAT':
      if (typeof value !== 'number' || (type === 'INTEGER' && !Number.isInteger(value))) throw fail();
      return { valueNumber: value };
    case 'BOOLEAN':
      if (typeof value !== 'boolean') throw fail();
      return { valueBool: value };
    case 'DATE':
      if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(value)) throw fail();
      return { valueDate: new Date(`${value}T00:00:00Z`) };
  }
}

async function load(tx: Tx): Promise<void> {
  let time = Date.parse(data.clock.start);
  const tick = () => {
    const at = new Date(time);
    time += data.clock.stepMs;
    return at;
  };
  const stamp = () => {
    const at = tick();
    return { createdAt: at, updatedAt: at };
  };
  const select = { id: true } as const;
  const [rate, org, user, file, library, texture, classConf, attribute, board, object, connection, stream, group] = [
    'rate',
    'organization',
    'user',
    'file',
    'library',
    'texture',
    'class',
    'attribute',
    'whiteboard',
    'object',
    'connection',
    'data stream',
    'highlight group',
  ].map((what) => new Ids(what)) as [Ids, Ids, Ids, Ids, Ids, Ids, Ids, Ids, Ids, Ids, Ids, Ids, Ids];

  rate.add(
    data.rates.map((r) => r.code),
    await tx.rate.createManyAndReturn({ select, data: data.rates.map((r) => ({ ...r, ...stamp() })) }),
  );

  const orgs = Object.entries(data.organizations);
  org.add(
    orgs.map(([key]) => key),
    await tx.organization.createManyAndReturn({
      select,
      data: orgs.map(([, o]) => ({ name: o.name, rateId: rate.get(o.rate), ...stamp() })),
    }),
  );

  user.add(
    users.map(([key]) => key),
    await tx.user.createManyAndReturn({
      select,
      data: users.map(([, { roles, ...u }]) => {
        const active = Object.keys(roles)[0];
        return { ...u, activeOrganizationId: active ? org.get(active) : null, ...stamp() };
      }),
    }),
  );
  await tx.userOrganization.createMany({
    data: users.flatMap(([key, u]) =>
      Object.entries(u.roles).map(([orgKey, role]) => {
        const at = stamp();
        return { userId: user.get(key), organizationId: org.get(orgKey), role, lastActivity: at.createdAt, ...at };
      }),
    ),
  });
  await tx.userInvite.createMany({
    data: data.invites.map((i) => ({
      email: i.email,
      organizationId: org.get(i.org),
      role: i.role,
      invitedById: user.get(i.by),
      tokenHash: createHash('sha256').update(i.token).digest('hex'),
      expiresAt: new Date(i.expiresAt),
      acceptedAt: i.acceptedAt ? new Date(i.acceptedAt) : null,
      ...stamp(),
    })),
  });

  file.add(
    data.files.map((f) => f.key),
    await tx.file.createManyAndReturn({
      select,
      data: data.files.map((f) => ({
        file: f.file,
        name: f.file.slice(f.file.lastIndexOf('/') + 1),
        contentType: f.contentType,
        size: f.size,
        organizationId: org.get(f.org),
        uploadedById: user.get(f.by),
        createdAt: tick(),
      })),
    }),
  );

  // ---------------------------------------------------------------- libraries
  library.add(
    data.libraries.map((l) => l.key),
    await tx.library.createManyAndReturn({
      select,
      data: data.libraries.map((l) => ({
        organizationId: org.get(l.org),
        authorId: user.get(l.by),
        name: l.name,
        description: l.description,
        publishedStatus: l.status,
        ...stamp(),
      })),
    }),
  );
  const textures = data.libraries.flatMap((l) => l.textures.map((t) => ({ l, t })));
  texture.add(
    textures.map(({ l, t }) => `${l.key}/${t.key}`),
    await tx.classTexture.createManyAndReturn({
      select,
      data: textures.map(({ l, t: { key: _key, light, dark, ...fields } }) => ({
        libraryId: library.get(l.key),
        ...fields,
        lightThemeImageId: light ? file.get(light) : null,
        darkThemeImageId: dark ? file.get(dark) : null,
        ...stamp(),
      })),
    }),
  );
  const classRows = data.libraries.flatMap((l) => l.classes.map((c) => ({ l, c })));
  const classOrg = new Map(classRows.map(({ l, c }) => [c.key, l.org]));
  classConf.add(
    classRows.map(({ c }) => c.key),
    await tx.classConf.createManyAndReturn({
      select,
      data: classRows.map(({ l, c }) => ({
        libraryId: library.get(l.key),
        name: c.name,
        description: c.description,
        classType: c.type,
        icon: c.icon,
        figureType: c.figure,
        textureId: c.texture ? texture.get(`${l.key}/${c.texture}`) : null,
        ...stamp(),
      })),
    }),
  );
  /** A class of the board's organization. */
  const classIn = (orgKey: string, key: string) => {
    if (classOrg.get(key) !== orgKey) throw new Error(`seed data: class "${key}" is not in organization "${orgKey}"`);
    return classConf.get(key);
  };
  const attributes = classes.flatMap((c) =>
    c.attributes.map(([code, name, type, required, choices], i) => ({
      c,
      code,
      name,
      type,
      required,
      choices,
      order: i + 1,
    })),
  );
  const attributeType = new Map(attributes.map((a) => [`${a.c.key}.${a.code}`, a]));
  attribute.add(
    attributes.map((a) => `${a.c.key}.${a.code}`),
    await tx.classConfAttribute.createManyAndReturn({
      select,
      data: attributes.map((a) => ({
        classConfId: classConf.get(a.c.key),
        name: a.name,
        code: a.code,
        type: a.type,
        order: a.order,
        isRequired: a.required ?? false,
        choices: a.choices ?? [],
        ...stamp(),
      })),
    }),
  );

  // ---------------------------------------------------------------- whiteboards and what is drawn on them
  board.add(
    boards.map((b) => b.key),
    await tx.whiteboard.createManyAndReturn({
      select,
      data: boards.map((b) => ({
        name: b.name,
        description: b.description,
        authorId: user.get(b.by),
        organizationId: org.get(b.org),
        inTheArchive: b.archived ?? false,
        miniDrawingId: b.mini ? file.get(b.mini) : null,
        ...stamp(),
      })),
    }),
  );
  const placed = boards.flatMap((b) => b.objects.map((o) => ({ b, o })));
  const boardOf = new Map(placed.map(({ b, o }) => [o.key, b]));
  object.add(
    placed.map(({ o }) => o.key),
    await tx.whiteboardObject.createManyAndReturn({
      select,
      data: placed.map(({ b, o }) => ({
        whiteboardId: board.get(b.key),
        classConfId: o.class ? classIn(b.org, o.class) : null,
        authorId: user.get(o.by ?? b.by),
        name: o.name,
        description: o.description ?? '',
        ...stamp(),
      })),
    }),
  );
  /** An object of the given board. */
  const objectOn = (boardKey: string, key: string) => {
    if (boardOf.get(key)?.key !== boardKey) throw new Error(`seed data: object "${key}" is not on board "${boardKey}"`);
    return object.get(key);
  };
  // Prisma writes a number from 2^63 on with 16 significant digits, which puts the largest double out of
  // range (the gateway refuses such input, storable.ts); a legacy database holds it, so it goes in as SQL.
  const widest = placed.flatMap(({ o }) => (o.at.some((at) => at[2] === Number.MAX_VALUE) ? [object.get(o.key)] : []));
  await tx.whiteboardObjectInstance.createMany({
    data: placed.flatMap(({ o }) =>
      o.at.map(([x, y, width, height, zIndex]) => ({
        objectId: object.get(o.key),
        x,
        y,
        width: width === Number.MAX_VALUE ? 0 : width,
        height,
        zIndex,
        ...stamp(),
      })),
    ),
  });
  await tx.$executeRaw`UPDATE whiteboard_object_instance SET width = ${Number.MAX_VALUE}::float8 WHERE width = 0 AND object_id = ANY(${widest}::int[])`;
  await tx.whiteboardObjectAttribute.createMany({
    data: placed.flatMap(({ o }) =>
      Object.entries(o.values ?? {}).map(([code, value]) => {
        const a = attributeType.get(`${o.class}.${code}`);
        if (!a) throw new Error(`seed data: object "${o.key}": class "${o.class}" has no attribute "${code}"`);
        const columns = valueColumns(a.type, a.choices ?? [], value, `${o.key}.${code}`);
        return {
          objectId: object.get(o.key),
          attributeId: attribute.get(`${o.class}.${code}`),
          ...columns,
          ...stamp(),
        };
      }),
    ),
  });
  await tx.whiteboardObjectRelation.createMany({
    data: boards.flatMap((b) =>
      b.relations.map(([parent, child]) => ({
        parentObjectId: objectOn(b.key, parent),
        childObjectId: objectOn(b.key, child),
        createdAt: tick(),
      })),
    ),
  });
  const connections = boards.flatMap((b) => b.connections.map((c) => ({ b, c })));
  connection.add(
    connections.map(({ b, c }) => `${b.key}/${c.key}`),
    await tx.whiteboardObjectConnection.createManyAndReturn({
      select,
      data: connections.map(({ b, c }) => ({
        whiteboardId: board.get(b.key),
        sourceObjectId: objectOn(b.key, c.from),
        targetObjectId: objectOn(b.key, c.to),
        name: c.name,
        color: c.color,
        direction: c.direction,
        shape: c.shape,
        style: c.style,
        ...stamp(),
      })),
    }),
  );

  // ---------------------------------------------------------------- data streams
  const streamRows = boards.flatMap((b) => b.streams.map((s) => ({ b, s })));
  stream.add(
    streamRows.map(({ s }) => s.key),
    await tx.dataStream.createManyAndReturn({
      select,
      data: streamRows.map(({ b, s }) => ({
        name: s.name,
        description: s.description,
        icon: s.icon,
        color: s.color,
        authorId: user.get(s.by),
        whiteboardId: board.get(b.key),
        ...stamp(),
      })),
    }),
  );
  await tx.slide.createMany({
    data: streamRows.flatMap(({ s }) =>
      s.slides.map((slide, i) => {
        const [cameraX1, cameraY1, cameraX2, cameraY2] = slide.camera ?? [0, 0, 0, 0];
        return {
          dataStreamId: stream.get(s.key),
          authorId: user.get(s.by),
          order: i + 1,
          name: slide.name,
          description: slide.description,
          connectionsIsUsed: slide.connections ?? false,
          enableCamera: !!slide.camera,
          cameraX1,
          cameraY1,
          cameraX2,
          cameraY2,
          enableDescription: slide.description !== '',
          ...stamp(),
        };
      }),
    ),
  });
  await tx.dataStreamConnection.createMany({
    data: streamRows.flatMap(({ b, s }) =>
      s.steps.map(([key, direction, description], i) => ({
        dataStreamId: stream.get(s.key),
        objectConnectionId: connection.get(`${b.key}/${key}`),
        direction,
        order: i + 1,
        description,
        ...stamp(),
      })),
    ),
  });

  // ---------------------------------------------------------------- highlights
  const groups = boards.flatMap((b) => b.groups.map((g) => ({ b, g })));
  group.add(
    groups.map(({ b, g }) => `${b.key}/${g.name}`),
    await tx.whiteboardHighlightGroup.createManyAndReturn({
      select,
      data: groups.map(({ b, g }) => ({
        whiteboardId: board.get(b.key),
        name: g.name,
        isActive: g.isActive,
        ...stamp(),
      })),
    }),
  );
  const highlights = boards.flatMap((b) => [
    ...b.groups.flatMap((g) => g.highlights.map((h) => ({ b, groupId: group.get(`${b.key}/${g.name}`), h }))),
    ...b.highlights.map((h) => ({ b, groupId: null, h })),
  ]);
  await tx.whiteboardHighlight.createMany({
    data: highlights.map(({ b, groupId, h }) => ({
      whiteboardId: board.get(b.key),
      groupId,
      name: h.name,
      color: h.color,
      classConfId: classIn(b.org, h.class),
      attributeId: attribute.get(`${h.class}.${h.attribute}`),
      operand: h.operand,
      value: h.value,
      isActive: h.isActive ?? true,
      ...stamp(),
    })),
  });

  // ---------------------------------------------------------------- repository and action log
  await tx.objectRepositoryEntry.createMany({
    data: data.repository.map((r) => {
      const objectId = object.get(r.object);
      return {
        organizationId: org.get(boardOf.get(r.object)!.org),
        objectId,
        authorId: user.get(r.by),
        name: r.name,
        description: r.description,
        ...stamp(),
      };
    }),
  });
  const entities = { Rate: rate, Library: library, Whiteboard: board, WhiteboardObject: object, DataStream: stream };
  await tx.userActionLog.createMany({
    data: data.actions.map((a) => ({
      userId: user.get(a.by),
      organizationId: a.org ? org.get(a.org) : null,
      method: a.method,
      entityType: a.entity[0],
      entityId: typeof a.entity[1] === 'number' ? a.entity[1] : entities[a.entity[0]].get(a.entity[1]),
      createdAt: tick(),
    })),
  });
}
