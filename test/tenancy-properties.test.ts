import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ModelName } from '../src/auth/tenancy.js';
import { loadConfig } from '../src/config.js';
import { createApp, type Gateway } from '../src/http/app.js';
import { schema } from '../src/schema/index.js';
import { openTestDatabase, tableOwnerRole } from './helpers/database.js';
import {
  generateDocument,
  generationOptions,
  harvestCursors,
  poolsOf,
  type GeneratedDocument,
  type Pools,
} from './helpers/documents.js';
import { forEachRun, seedOf } from './helpers/properties.js';
import { AUDIENCE, demoAccounts, demoTokens, TestProvider } from './helpers/oidc-provider.js';
import { crossOrganizationReferences, demoCallers, foreignRows, Visibility, type Caller } from './helpers/tenancy.js';
import { addWebhookEndpoints } from './helpers/webhooks.js';

// Random query documents generated from the schema, sent by every kind of caller through the read
// planner and through the resolvers: the answers must be equal, value for value and key for key, and
// hold no row of an organization the caller is not in; on PostgreSQL, the planner under row-level
// security must answer them alike too. Each caller also signs in at a real OpenID provider, and its
// bearer token (with the scope of its key's permission) must get its key's answers on both paths. Drawn
// by fast-check (helpers/properties.ts), a failing document is shrunk to the simplest that fails;
// TENANCY_SEED=<seed> replays a run; TENANCY_DOCUMENTS sets the documents per caller (a release runs thousands).

const seed = seedOf('TENANCY_SEED', 'test/tenancy-properties.test.ts');
const documentsPerCaller = Number(process.env.TENANCY_DOCUMENTS ?? 200);

let database: Awaited<ReturnType<typeof openTestDatabase>>;
let planned: Gateway;
let resolved: Gateway;
/** On PostgreSQL, the planner again under row-level security (ROW_LEVEL_SECURITY), which must change no answer. */
let guarded: Gateway | undefined;
let callers: Caller[];
let visibility: Visibility;
let pools: Pools;
let provider: TestProvider;
/** Each caller's bearer token, by name. */
let tokens: Map<string, string>;

beforeAll(async () => {
  // On PostgreSQL the tables' owner is no superuser, so that row-level security holds for the guarded gateway.
  database = await openTestDatabase(undefined, { owner: tableOwnerRole });
  const { prisma } = database.database;
  await crossOrganizationReferences(prisma);
  await addWebhookEndpoints(prisma);
  provider = await TestProvider.start({ accounts: demoAccounts(), accessTokenTtl: 3600 });
  // Retention would delete the seeded entries (older than 90 days) between the two doors' reads of a document.
  const config = loadConfig({ OIDC_ISSUER: provider.issuer, OIDC_AUDIENCE: AUDIENCE, CHANGE_LOG_RETENTION_DAYS: '0' });
  planned = createApp({ schema, config });
  resolved = createApp({ schema, config: { ...config, readPlans: false } });
  if (database.url) guarded = createApp({ schema, config: { ...config, rowLevelSecurity: true } });
  callers = await demoCallers(prisma, database.keys);
  tokens = await demoTokens(
    provider,
    callers.map((caller) => caller.name),
  );
  visibility = await Visibility.of(prisma);
  pools = await poolsOf(prisma);
});
afterAll(async () => {
  await planned?.close();
  await resolved?.close();
  await guarded?.close();
  await provider?.close();
  await database?.drop();
});

async function answer(
  gateway: Gateway,
  caller: Caller,
  document: GeneratedDocument,
  credential: 'key' | 'token' = 'key',
): Promise<string> {
  const response = await gateway.request('/graphql', {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/graphql-response+json',
      ...(credential === 'key' ? { 'x-api-key': caller.key } : { authorization: `Bearer ${tokens.get(caller.name)}` }),
    },
    body: JSON.stringify(document),
  });
  // Parsed and printed again: the planner's JSON text and graphql-js's may spell a number differently (1e+20).
  // An export carries the time it was made, which two requests only share within one millisecond.
  const text = (await response.text()).replace(/"exportedAt":"[^"]*"/g, '"exportedAt":"(when exported)"');
  const body = JSON.parse(text) as { data?: unknown; errors?: { extensions?: { code?: string } }[] };
  if (body.errors) {
    // graphql-js runs root fields at once: how many of several failing non-null fields are reported when
    // the whole answer is null, and the order of errors beside data, follow the order they settle in.
    body.errors =
      body.data === null
        ? [{ extensions: { code: 'the whole answer failed' } }]
        : body.errors.sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
  }
  return `${response.status} ${JSON.stringify(body)}`;
}

describe('generated documents answer alike through the planner and the resolvers, and show no other organization', () => {
  it('covers every kind of caller', () => {
    const names = callers.map((caller) => caller.name);
    expect(callers.some((caller) => caller.isAdmin)).toBe(true);
    expect(callers.some((caller) => caller.organizations.size > 1)).toBe(true);
    expect(new Set(callers.map((caller) => [...caller.organizations].sort().join()))).toHaveProperty('size', 4);
    expect(names).toContain('viewer');
    expect([...tokens.keys()]).toEqual(names);
  });

  it.each([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10])(
    'caller %i',
    async (index) => {
      const caller = callers[index];
      await forEachRun(seed + index, documentsPerCaller, async (random) => {
        const document = generateDocument(schema, random, pools, generationOptions);
        const context = `TENANCY_SEED=${seed}, caller ${caller.name}:\n${document.query}\n${JSON.stringify(document.variables)}`;
        const [fromPlanner, fromResolvers] = [
          await answer(planned, caller, document),
          await answer(resolved, caller, document),
        ];
        expect(fromPlanner, context).toBe(fromResolvers);
        expect(await answer(planned, caller, document, 'token'), `${context}\n(bearer token, planned)`).toBe(
          fromPlanner,
        );
        expect(await answer(resolved, caller, document, 'token'), `${context}\n(bearer token, resolved)`).toBe(
          fromPlanner,
        );
        if (guarded)
          expect(await answer(guarded, caller, document), `${context}\n(row-level security)`).toBe(fromPlanner);
        const body = JSON.parse(fromPlanner.slice(fromPlanner.indexOf(' ') + 1));
        expect(foreignRows(schema, visibility, caller, body.data), context).toEqual([]);
        harvestCursors(pools, body.data);
        // Only a bug is a 500: whatever a document asks, the answer is data or the caller's error.
        expect(fromPlanner, context).not.toMatch(/^5|INTERNAL_SERVER_ERROR|Unexpected error/);
      });
    },
    600_000,
  );
});

/** Choice lists whose values are row ids: the field, its argument's model, and the model of its values. */
const choiceLists: [field: string, argument: [name: string, model: string] | undefined, values: ModelName][] = [
  ['organizationChoices', undefined, 'Organization'],
  ['rateChoices', undefined, 'Rate'],
  ['objectRepositoryUserChoices', undefined, 'User'],
  ['whiteboardHighlightClassConfChoices', ['whiteboardId', 'Whiteboard'], 'ClassConf'],
  ['whiteboardHighlightAttributeChoices', ['classConfId', 'ClassConf'], 'ClassConfAttribute'],
];

describe('choice lists offer no row of another organization', () => {
  it.each(choiceLists)('%s, for every caller and every row it may be asked about', async (field, argument, values) => {
    for (const caller of callers) {
      for (const id of argument ? pools.ids.get(argument[1])! : [undefined]) {
        const args = argument ? `(${argument[0]}: ${id})` : '';
        const document = { query: `{ ${field}${args} { value } }`, variables: {} };
        const body = JSON.parse((await answer(planned, caller, document)).replace(/^\d+ /, ''));
        const offered = (body.data?.[field] ?? []).map((choice: { value: string }) => Number(choice.value));
        const foreign = offered.filter((value: number) => !visibility.mayUserSee(caller, values, value));
        expect(foreign, `${caller.name}: ${document.query}`).toEqual([]);
      }
    }
  });
});

describe('exports', () => {
  it("hold no class attribute of an organization the caller is not in, though the board's rows point at one", async () => {
    const { prisma } = database.database;
    // crossOrganizationReferences pointed an attribute value of Globex's at a class attribute of Acme's.
    const foreign = await prisma.whiteboardObjectAttribute.findFirstOrThrow({
      where: {
        object: { whiteboard: { organization: { name: 'Globex Logistics' } } },
        attribute: { classConf: { library: { organization: { name: 'Acme Robotics' } } } },
      },
      include: { attribute: true, object: true },
    });
    const exported = async (name: keyof typeof database.keys) => {
      const caller = callers.find((candidate) => candidate.name === name)!;
      const document = { query: `{ exportWhiteboard(rowId: ${foreign.object.whiteboardId}) }`, variables: {} };
      const body = JSON.parse((await answer(resolved, caller, document)).replace(/^\d+ /, ''));
      const object = body.data.exportWhiteboard.objects.find((row: { id: number }) => row.id === foreign.objectId);
      return Object.keys(object.attributes);
    };
    expect(await exported('globexOwner')).not.toContain(foreign.attribute.code);
    expect(await exported('member')).toContain(foreign.attribute.code);
  });
});
