import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoKeyHolders } from '../src/db/seed/keys.js';
import { decodeCursor, isAfter } from '../src/live/positions.js';
import { demoOrganizationIds } from './helpers/demo-ids.js';
import { postGraphQL } from './helpers/graphql.js';
import {
  credentialHeader,
  subscribeSse,
  subscribeWs,
  until,
  type Subscription,
  type TestCredential,
} from './helpers/live.js';
import { AUDIENCE, demoAccounts, demoTokens, TestProvider } from './helpers/oidc-provider.js';
import { Draws, forEachRun, seedOf, type Random } from './helpers/properties.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { demoCallers, Visibility, type Caller } from './helpers/tenancy.js';

// The two subscriptions under generated input, as the tenancy property test puts the queries: every
// demo caller (each role of each organization, a user of both, a former member, a read-only key, a
// platform admin), by its key or its bearer token, and a client with none, opens one to four at once
// (now and then while the tables are locked, so that their lookups go together, as a reconnect
// storm's), over Server-Sent Events or WebSocket, to boards and organizations of every organization
// and of no row, from no cursor, a cursor of a change of the row's organization or of another's, or a
// malformed one. Each must open exactly when the query door shows the caller its row, else be refused
// with the door's code; while boards of every organization are renamed, an open one must tell exactly
// the changes of its board or organization after its cursor, none of another organization's; and none
// may stay open. TENANCY_SEED=<seed> replays a run; TENANCY_SUBSCRIPTIONS sets the cases per caller.

type Subscribed = 'Whiteboard' | 'Organization';

const seed = seedOf('TENANCY_SEED', 'test/tenancy-subscriptions.test.ts');
const casesPerCaller = Number(process.env.TENANCY_SUBSCRIPTIONS ?? 10);

const subscriptions: Record<Subscribed, string> = {
  Whiteboard: `subscription($id: Int!, $after: String) { told: whiteboardEvents(whiteboardId: $id, after: $after) {
    ... on LiveEvent { kind type rowId whiteboardId cursor } ... on NodeChangedEvent { node { ... on Whiteboard { organizationId } } }
  } }`,
  Organization: `subscription($id: Int!, $after: String) { told: organizationWhiteboardEvents(organizationId: $id, after: $after) {
    ... on LiveEvent { kind type rowId whiteboardId cursor } ... on NodeChangedEvent { node { ... on Whiteboard { organizationId } } }
  } }`,
};
/** The query door's read of the same row, which decides whether the subscription may open. */
const rowQueries: Record<Subscribed, string> = {
  Whiteboard: 'query($id: Int!) { row: whiteboard(rowId: $id) { rowId } }',
  Organization: 'query($id: Int!) { row: organization(rowId: $id) { rowId } }',
};
const rename = `mutation($rowId: Int!, $name: String!) { updateWhiteboard(input: { rowId: $rowId, name: $name }) { whiteboard { rowId } } }`;
const changes = `query($organization: Int!, $after: String) { changes(organizationId: $organization, after: $after, first: 1000) {
  edges { cursor node { ... on LiveEvent { type rowId whiteboardId } } } pageInfo { hasNextPage endCursor }
} }`;

/** A change, as the change log of its organization tells it, or as a subscription tells it. */
interface Change {
  cursor: string;
  type: string;
  rowId: number;
  whiteboardId: number | null;
}
interface Told extends Change {
  kind: string;
  node?: { organizationId: number } | null;
}

/** Ids that name no row: none is below 1, and the data holds far fewer. */
const noRows = [0, -1, 99_999, 2 ** 31 - 1];

let server: TestServer;
let provider: TestProvider;
let callers: Caller[];
/** Each caller's bearer token, by name. */
let tokens: Map<string, string>;
let visibility: Visibility;
let organizations: number[];
let boards: number[];
const organizationOfBoard = new Map<number, number>();
/** The owner's key of each organization, which renames its boards. */
const ownerKeys = new Map<number, string>();
/** Every change of each organization in commit order, as the platform admin reads `changes`. */
const log = new Map<number, Change[]>();
let renames = 0;

beforeAll(async () => {
  provider = await TestProvider.start({ accounts: demoAccounts(), accessTokenTtl: 3600 });
  // Retention keeps nothing out: a cursor of the first change must stay one the log continues from.
  server = await startTestServer({
    OIDC_ISSUER: provider.issuer,
    OIDC_AUDIENCE: AUDIENCE,
    CHANGE_LOG_RETENTION_DAYS: '0',
  });
  const { prisma } = server.database;
  callers = await demoCallers(prisma, server.keys);
  tokens = await demoTokens(
    provider,
    callers.map((caller) => caller.name),
  );
  visibility = await Visibility.of(prisma);
  organizations = await visibility.ids(prisma, 'Organization');
  boards = await visibility.ids(prisma, 'Whiteboard');
  for (const organization of organizations)
    for (const board of visibility.rowsIn('Whiteboard', organization)) organizationOfBoard.set(board, organization);
  const ids = await demoOrganizationIds(prisma);
  ownerKeys.set(ids.acme, server.keys.owner).set(ids.globex, server.keys.globexOwner);
  // A change in every organization, so that each has a cursor to resume from.
  for (const organization of organizations) await renamed([visibility.rowsIn('Whiteboard', organization)[0]]);
});
afterAll(async () => {
  await server?.close();
  await provider?.close();
});

/** Renames `names` boards in turn, each by its organization's owner, and reads their changes into `log`; answers them. */
async function renamed(names: number[]): Promise<Change[]> {
  for (const board of names) {
    const owner = ownerKeys.get(organizationOfBoard.get(board)!);
    const result = await server.graphql(rename, { rowId: board, name: `Tenancy ${++renames}` }, owner);
    expect(result.errors).toBeUndefined();
  }
  const fresh: Change[] = [];
  for (const organization of organizations) {
    const wanted = names.filter((board) => organizationOfBoard.get(board) === organization).length;
    const read = await changesAfter(organization, log.get(organization)?.at(-1)?.cursor, wanted);
    log.set(organization, [...(log.get(organization) ?? []), ...read]);
    fresh.push(...read);
  }
  return fresh;
}

/** The changes of `organization` after `after`, once there are `wanted`: one shows once every transaction before it has ended. */
async function changesAfter(organization: number, after: string | undefined, wanted: number): Promise<Change[]> {
  const read: Change[] = [];
  const deadline = Date.now() + 5_000;
  for (;;) {
    const variables = { organization, after: read.at(-1)?.cursor ?? after };
    const page = (await server.graphql(changes, variables, server.keys.platformAdmin)).data!.changes;
    read.push(
      ...page.edges.map((edge: { cursor: string; node: Omit<Change, 'cursor'> }) => ({
        cursor: edge.cursor,
        ...edge.node,
      })),
    );
    if (page.pageInfo.hasNextPage) continue;
    if (read.length >= wanted) return read;
    if (Date.now() > deadline) throw new Error(`${wanted} changes of organization ${organization} did not show`);
    await sleep(10);
  }
}

/** One subscription of a case: its door, its row, the cursor it resumes from, and the board whose rename it must tell. */
interface Opening {
  door: 'Server-Sent Events' | 'WebSocket';
  model: Subscribed;
  target: number;
  after?: { cursor: string; of: string; header: boolean };
  /** Its board, or a board of its organization. */
  marker: number;
}

/** A caller's credential, the subscriptions it opens at once (as clients reconnecting together), and boards renamed meanwhile. */
interface Case {
  caller?: Caller;
  credential: TestCredential | null;
  by: 'key' | 'bearer token' | 'no credential';
  openings: Opening[];
  /** Whether the boards and organizations are locked while they open, so that their lookups wait and go together. */
  busy: boolean;
  renamed: number[];
}

/** Cursors of no change, made from one of ours: another text, none, ours padded, ours without its entry id. */
const malformed = (cursor: string) => [
  'not-a-cursor',
  '',
  `${cursor}=`,
  Buffer.from(Buffer.from(cursor, 'base64url').toString().replace(/:\d+$/, '')).toString('base64url'),
];

class Cases extends Draws {
  next(caller: Caller | undefined): Case {
    const by = caller ? (this.chance(0.4) ? 'bearer token' : 'key') : 'no credential';
    const credential = !caller ? null : by === 'key' ? caller.key : { bearer: tokens.get(caller.name)! };
    const openings = Array.from({ length: this.integer(1, 4) }, () => this.opening());
    return {
      caller,
      credential,
      by,
      openings,
      busy: openings.length > 2 && this.chance(0.5),
      renamed: this.some(boards, 3),
    };
  }

  private opening(): Opening {
    const door = this.chance(0.4) ? 'WebSocket' : 'Server-Sent Events';
    const model: Subscribed = this.chance(0.5) ? 'Organization' : 'Whiteboard';
    const target = this.chance(0.75) ? this.pick(model === 'Whiteboard' ? boards : organizations) : this.pick(noRows);
    const organization = organizationOf(model, target);
    const marker = model === 'Whiteboard' && organization ? target : this.pick(boardsOf(organization));
    return { door, model, target, after: this.after(organization, door), marker };
  }

  /** No cursor, the last change's of the row's organization or of another, or a malformed one; over SSE now and then as Last-Event-ID. */
  private after(organization: number | undefined, door: Opening['door']): Opening['after'] {
    const choice = this.random();
    if (choice < 0.4) return undefined;
    const own = choice < 0.6 && organization !== undefined;
    const of = own ? organization : this.pick(organizations.filter((other) => other !== organization));
    const cursor = log.get(of)!.at(-1)!.cursor;
    if (choice < 0.8)
      return {
        cursor,
        of: own ? 'its own organization' : 'another organization',
        header: door === 'Server-Sent Events' && this.chance(0.3),
      };
    return { cursor: this.pick(malformed(cursor)), of: 'no change', header: false };
  }
}

/** The organization of a board or an organization; undefined for no row. */
const organizationOf = (model: Subscribed, id: number): number | undefined =>
  model === 'Whiteboard' ? organizationOfBoard.get(id) : organizations.includes(id) ? id : undefined;
const boardsOf = (organization: number | undefined) =>
  organization === undefined ? boards : visibility.rowsIn('Whiteboard', organization);

/** What the query door answers the caller for an opening's row: `shown`, or the error's code (NOT_FOUND for null). */
async function doorAnswer(credential: TestCredential | null, { model, target }: Opening): Promise<string> {
  const answer = await postGraphQL(server.url, rowQueries[model], {
    variables: { id: target },
    headers: credentialHeader(credential),
  });
  if (answer.errors) return String(answer.errors[0].extensions?.code);
  return answer.data!.row ? 'shown' : 'NOT_FOUND';
}

/** Whether the caller's organizations hold the row (a platform admin: every row there is). */
function mayUserSee(caller: Caller, { model, target }: Opening): boolean {
  if (organizationOf(model, target) === undefined) return false;
  return model === 'Whiteboard'
    ? visibility.mayUserSee(caller, 'Whiteboard', target)
    : visibility.mayUserSeeOrganization(caller, target);
}

/**
 * What the subscription must answer, from the query door's answer for its row: opened where the row
 * is shown, refused with the door's code where it is not (a WebSocket without a credential at sign-in,
 * with 4403), and a malformed cursor refused as the door refuses one, whatever the row.
 */
function expectedOutcome({ door, after }: Opening, shown: string): string {
  if (shown === 'UNAUTHENTICATED') return door === 'WebSocket' ? 'close 4403' : shown;
  if (after?.of === 'no change') return 'BAD_USER_INPUT';
  return shown === 'shown' ? 'opened' : shown;
}

function subscribe(credential: TestCredential | null, { model, target, door, after }: Opening) {
  const variables = { id: target, ...(after && !after.header ? { after: after.cursor } : {}) };
  if (door === 'WebSocket') return subscribeWs(server.url, credential, subscriptions[model], variables);
  const headers: Record<string, string> = after?.header ? { 'last-event-id': after.cursor } : {};
  return subscribeSse(server.url, credential, subscriptions[model], variables, headers);
}

type Result = Awaited<ReturnType<Subscription['next']>>;

/**
 * Whether each subscription opened, or the code it was refused with (a WebSocket refused at sign-in:
 * its close code); and its first result, to read on from when it opened. The refused ones answer at
 * once, and the server then holds all the others.
 */
async function openedOrRefused(opened: Subscription[]): Promise<{ outcome: string; first: Promise<Result> }[]> {
  const answers = opened.map((subscription) => {
    const answer = { first: subscription.next(10_000), result: undefined as Result | undefined };
    answer.first.then(
      (result) => (answer.result = result),
      () => undefined,
    );
    return answer;
  });
  const refused = () => answers.filter((answer) => answer.result?.errors).length;
  await until(() => refused() + server.gateway.live.size >= opened.length, 10_000);
  return answers.map(({ first, result }) => {
    const [error] = result?.errors ?? [];
    const outcome = error ? String(error.extensions?.code ?? `close ${error.message.split(' ')[0]}`) : 'opened';
    return { outcome, first };
  });
}

/** What a subscription may be told of: changes of its board, or boards of its organization. */
const tellsOf =
  ({ model, target }: Opening) =>
  (change: Change): boolean =>
    model === 'Whiteboard'
      ? change.whiteboardId === target
      : change.type === 'Whiteboard' && organizationOfBoard.get(change.rowId) === target;

const position = (cursor: string) => decodeCursor(cursor, 'after');

/**
 * What an open subscription tells up to the last change it must, checked: exactly the changes of its
 * board or organization after its cursor (else since it opened), none of another organization's.
 */
async function expectOnlyItsOwn(
  opening: Opening,
  subscription: Subscription,
  first: Promise<Result>,
  fresh: Change[],
  context: string,
) {
  const { after } = opening;
  const organization = organizationOf(opening.model, opening.target)!;
  const tells = tellsOf(opening);
  const expected = after
    ? log
        .get(organization)!
        .filter((change) => tells(change) && isAfter(position(change.cursor), position(after.cursor)))
    : fresh.filter(tells);
  const last = expected.at(-1)!.cursor;
  const told: Told[] = [];
  const next = (result: Promise<Result>) =>
    result.catch((error: Error) => {
      throw new Error(`${context}\n${error.message} after ${told.length} of ${expected.length} events`);
    });
  for (let result = await next(first); ; result = await next(subscription.next(5_000))) {
    expect(result.errors, `${context}\nafter ${told.length} events`).toBeUndefined();
    told.push(result.data.told);
    if (told.at(-1)!.cursor === last) break;
  }
  const foreign = told.filter((event) => !tells(event) || (event.node && event.node.organizationId !== organization));
  expect(foreign, `${context}\ntold changes of another board or organization`).toEqual([]);
  expect(
    told.map((event) => event.cursor),
    context,
  ).toEqual(expected.map((change) => change.cursor));
}

/**
 * `open`, while the boards and organizations are locked a while (by a migration, say) when `busy`:
 * the lookups of the subscriptions then wait together, and are made in one statement (as a reconnect
 * storm's), which must still tell each one's row apart.
 */
async function whileBusy<T>(busy: boolean, open: () => Promise<T>): Promise<T> {
  if (!busy) return open();
  let held!: () => void;
  const holding = new Promise<void>((resolve) => (held = resolve));
  const locked = server.database.prisma.$transaction(async (tx) => {
    await tx.$executeRaw`LOCK TABLE whiteboard, organization IN ACCESS EXCLUSIVE MODE`;
    held();
    await sleep(50);
  });
  await holding;
  const [opened] = await Promise.all([open(), locked]);
  return opened;
}

/** How often each outcome came, for the line the file prints. */
const outcomes = new Map<string, number>();
afterAll(() => console.log(`subscriptions: ${[...outcomes].map(([outcome, n]) => `${outcome} ${n}`).join(', ')}`));

/** The case's subscriptions, opened at once: each opens or is refused as the query door says, and tells only its own. */
async function check(name: string, testCase: Case) {
  const { caller, credential, by, openings } = testCase;
  const contexts = openings.map(({ door, model, target, after }) => {
    const cursor = after ? `, after a cursor of ${after.of}${after.header ? ' (as Last-Event-ID)' : ''}` : '';
    return `TENANCY_SEED=${seed}, ${name} by ${by}, ${openings.length} at once; this one over ${door}: ${model} ${target}${cursor}`;
  });
  const expected: string[] = [];
  for (const [i, opening] of openings.entries()) {
    const shown = await doorAnswer(credential, opening);
    // The query door itself shows what the caller's organizations hold, and nothing else.
    const visible = caller && mayUserSee(caller, opening);
    expect(shown, contexts[i]).toBe(caller ? (visible ? 'shown' : 'NOT_FOUND') : 'UNAUTHENTICATED');
    expected.push(expectedOutcome(opening, shown));
  }
  const opened = await whileBusy(testCase.busy, () =>
    Promise.all(openings.map((opening) => subscribe(credential, opening))),
  );
  try {
    const answers = await openedOrRefused(opened);
    for (const [i, { outcome }] of answers.entries()) {
      outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
      expect(outcome, contexts[i]).toBe(expected[i]);
    }
    const open = [...answers.keys()].filter((i) => answers[i].outcome === 'opened');
    if (!open.length) return;
    // Each open one's board is renamed last, twice over: by its last change, every board renamed has been once.
    const markers = open.map((i) => openings[i].marker);
    const fresh = await renamed([...testCase.renamed, ...markers, ...markers]);
    for (const i of open) await expectOnlyItsOwn(openings[i], opened[i], answers[i].first, fresh, contexts[i]);
  } finally {
    // Nothing stays open: the next case, and the server, start from none.
    for (const subscription of opened) subscription.close();
    await expect.poll(() => server.gateway.live.size, { timeout: 5_000, message: contexts.join('\n') }).toBe(0);
  }
}

const subscribers = [...(Object.keys(demoKeyHolders) as Caller['name'][]), 'no credential'] as const;

describe('subscriptions open exactly where the query door shows the row, and tell only its changes', () => {
  it.each(subscribers.map((name, index) => [name, index] as const))(
    '%s',
    async (name, index) => {
      const caller = callers.find((candidate) => candidate.name === name);
      await forEachRun(seed + index, casesPerCaller, (random: Random) => check(name, new Cases(random).next(caller)));
    },
    120_000,
  );
});
