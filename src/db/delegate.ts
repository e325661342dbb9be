import { Prisma } from '../generated/prisma/client.js';
import type PrismaTypes from '../generated/pothos-types.js';

/** The models whose rows a numeric `id` names: every model of the graph (file chunks and rate-limit buckets are keyed otherwise). */
type ModelName = {
  [M in keyof PrismaTypes & string]: PrismaTypes[M]['Shape'] extends { id: number } ? M : never;
}[keyof PrismaTypes & string];

/** Prisma's error for a write whose `where` matched no row, or a findFirstOrThrow that found none. */
export const matchedNoRow = (error: unknown) =>
  error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2025';

type Operations<M extends ModelName> = Prisma.TypeMap['model'][M]['operations'];

/** A row of the model: its columns as Prisma reads them (Pothos's name for Prisma's model type). */
export type Row<M extends ModelName> = PrismaTypes[M]['Shape'];
/** A `where` of the model. */
export type Where<M extends ModelName> = NonNullable<Operations<M>['findMany']['args']['where']>;
/** A `select` of the model. */
export type Select<M extends ModelName> = NonNullable<Operations<M>['findMany']['args']['select']>;
/** A `orderBy` of the model. */
export type OrderBy<M extends ModelName> = NonNullable<Operations<M>['findMany']['args']['orderBy']>;
/** The columns of a new row, as `createMany` takes them: no nested writes, relations by their row ids. */
export type NewRow<M extends ModelName> = Exclude<Operations<M>['createMany']['args']['data'], readonly unknown[]>;
/** Columns a create or update writes. */
export type Columns<M extends ModelName> = Partial<NewRow<M>>;

/** What Pothos plans for a field of the model: the relations and columns its selection needs. */
export interface PlannedQuery<M extends ModelName> {
  include?: PrismaTypes[M]['Include'];
  select?: PrismaTypes[M]['Select'];
}

/** Conditions that must all hold (a filter and the caller's tenancy). */
type Conditions<M extends ModelName> = Where<M> | { AND: Where<M>[] };

/** A row by id, and at a version on a model whose rows have one. */
type Versioned<M extends ModelName> = { id: number } & (Row<M> extends { version: number }
  ? { version?: number }
  : object);

/** The row a lookup or change is about, and the tenancy condition the caller must meet. */
interface Targeted<M extends ModelName> {
  where: { id: number; AND?: Where<M>[] };
}

/**
 * The calls code written for any model makes on that model's Prisma delegate, typed from Prisma's
 * types of the model. The table below proves, model by model, that Prisma's delegate accepts them.
 */
export interface Delegate<M extends ModelName> {
  findFirst(args: Targeted<M> & { select: Select<M> }): Promise<object | null>;
  findFirstOrThrow(args: Targeted<M> & PlannedQuery<M>): Promise<Row<M>>;
  findMany(
    args: PlannedQuery<M> & {
      where: Conditions<M>;
      orderBy?: OrderBy<M>;
      skip?: number;
      take?: number;
      cursor?: PrismaTypes[M]['WhereUnique'];
    },
  ): Promise<Row<M>[]>;
  count(args: { where: Conditions<M> }): Promise<number>;
  create(args: { data: NewRow<M>; select: { id: true } }): Promise<{ id: number }>;
  // `version` only on models that have one (a versioned write, src/schema/versions.ts).
  update(args: { where: Versioned<M>; data: Columns<M>; select: { id: true } }): Promise<{ id: number }>;
  delete(args: { where: Versioned<M>; select: Select<M> }): Promise<{ id: number }>;
}

/** A client or a transaction. */
export type Client = Prisma.TransactionClient;

// One row per model rather than a lookup by name: each row is type-checked against Prisma's delegate.
const delegates: { [M in ModelName]: (client: Client) => Delegate<M> } = {
  Rate: (client) => client.rate,
  Organization: (client) => client.organization,
  User: (client) => client.user,
  UserOrganization: (client) => client.userOrganization,
  UserInvite: (client) => client.userInvite,
  ApiKey: (client) => client.apiKey,
  UserIdentity: (client) => client.userIdentity,
  UserActionLog: (client) => client.userActionLog,
  File: (client) => client.file,
  Whiteboard: (client) => client.whiteboard,
  DataStream: (client) => client.dataStream,
  DataStreamConnection: (client) => client.dataStreamConnection,
  Slide: (client) => client.slide,
  WhiteboardObject: (client) => client.whiteboardObject,
  WhiteboardObjectInstance: (client) => client.whiteboardObjectInstance,
  WhiteboardObjectAttribute: (client) => client.whiteboardObjectAttribute,
  WhiteboardObjectConnection: (client) => client.whiteboardObjectConnection,
  WhiteboardObjectRelation: (client) => client.whiteboardObjectRelation,
  WhiteboardHighlightGroup: (client) => client.whiteboardHighlightGroup,
  WhiteboardHighlight: (client) => client.whiteboardHighlight,
  ObjectRepositoryEntry: (client) => client.objectRepositoryEntry,
  Library: (client) => client.library,
  ClassConf: (client) => client.classConf,
  ClassConfAttribute: (client) => client.classConfAttribute,
  ClassTexture: (client) => client.classTexture,
  WebhookEndpoint: (client) => client.webhookEndpoint,
};

/** `prisma.whiteboard` for 'Whiteboard', on a client or a transaction. */
export function delegateOf<M extends ModelName>(client: Client, model: M): Delegate<M> {
  return delegates[model](client);
}
