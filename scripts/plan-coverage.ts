import { parse } from 'graphql';
import { commandLine } from '../src/cli.js';
import { loadConfig } from '../src/config.js';
import { createApp } from '../src/http/app.js';
import { schema } from '../src/schema/index.js';
import { openTestDatabase } from '../test/helpers/database.js';
import { generateDocument, generationOptions, harvestCursors, poolsOf } from '../test/helpers/documents.js';
import {
  contextOf,
  documentedQueries,
  planReason,
  sampleVariables,
  tally,
  testQueries,
  type FoundQuery,
} from '../test/helpers/plan-coverage.js';
import { crossOrganizationReferences, demoCallers } from '../test/helpers/tenancy.js';
import { runsOf } from '../test/helpers/properties.js';

const { values } = commandLine(
  `
usage: npm run plan-coverage [-- --seed <n>] [-- --documents <n>]

Counts the query operations the read planner answers with one statement, and why it leaves each
other one to the resolvers: the documents the tenancy property test generates (for each of its 11
callers, with this seed; cursors taken from the answers as the test takes them), and every query of
README.md, docs/*.md, examples/web-client and test/** (sent by the demo owner, variables made up by
type). Runs on an embedded database of its own, loaded with the demo data.

  --seed <n>        the property test's TENANCY_SEED (default 1)
  --documents <n>   documents per caller (default 200, as the test)
`,
  { options: { seed: { type: 'string', default: '1' }, documents: { type: 'string', default: '200' } } },
);
const seed = Number(values.seed);
const documentsPerCaller = Number(values.documents);

const database = await openTestDatabase(undefined);
const gateway = createApp({ schema, config: loadConfig({}) });
try {
  const { prisma } = database.database;
  await crossOrganizationReferences(prisma);
  const callers = await demoCallers(prisma, database.keys);
  const pools = await poolsOf(prisma);

  const reasons: (string | undefined)[] = [];
  for (const [index, caller] of callers.entries()) {
    const context = await contextOf(caller.key);
    for (const random of runsOf(seed + index, documentsPerCaller)) {
      const document = generateDocument(schema, random, pools, generationOptions);
      const response = await gateway.request('/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': caller.key },
        body: JSON.stringify(document),
      });
      const body = (await response.json()) as { data?: unknown; errors?: { extensions?: { code?: string } }[] };
      harvestCursors(pools, body.data);
      // Refused before it ran (the operation limits): the planner never saw it.
      reasons.push(
        body.data === undefined
          ? `refused before execution (${body.errors?.[0]?.extensions?.code ?? response.status})`
          : planReason(schema, context, parse(document.query), undefined, document.variables),
      );
    }
  }
  const owner = await contextOf(database.keys.owner);
  const reasonOf = (query: FoundQuery) =>
    planReason(schema, owner, query.document, query.operationName, sampleVariables(schema, query));
  const report = (title: string, counted: (string | undefined)[], note = '') => {
    const { planned, total, lines } = tally(counted);
    const share = total ? ((100 * planned) / total).toFixed(1) : '100.0';
    console.log(`\n${title}: ${planned} of ${total} planned (${share}%)${note}`);
    for (const line of lines) console.log(line);
  };
  report(`generated documents (seed ${seed}, ${documentsPerCaller} per caller, ${callers.length} callers)`, reasons);
  const documented = documentedQueries();
  report('README.md, docs/*.md, examples/web-client', documented.map(reasonOf));
  for (const query of documented) {
    const reason = reasonOf(query);
    if (reason) console.log(`        ${query.source} ${query.operationName ?? ''}: ${reason}`);
  }
  const tests = testQueries();
  report('test/**', tests.found.map(reasonOf), `; ${tests.built} more built at run time, not counted`);
} finally {
  await database.drop();
}
process.exit(0);
