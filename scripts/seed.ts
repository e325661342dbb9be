import { commandLine } from '../src/cli.js';
import { loadConfig } from '../src/config.js';
import { openDatabase, type Database } from '../src/db/index.js';
import { countRows, isEmpty, seedDemo, truncateAll } from '../src/db/seed/index.js';

const { values } = commandLine(
  `
usage: npm run db:seed [-- --reset]

Loads the demo data (two organizations, their users, libraries and boards) into an empty database:
DATABASE_URL, else the embedded one under DATA_DIR, and prints an API key for the owner, admin,
member and viewer of each organization, a user of both, a former member and the platform
administrator. With DEMO_API_KEY set, the Acme owner's key has that secret.

  --reset   empty every table first (everything in the database is lost)
`,
  { options: { reset: { type: 'boolean', default: false } } },
);
const reset = values.reset;
let database: Database | undefined;
try {
  const config = loadConfig();
  database = await openDatabase(config);
  const { prisma, engine } = database;
  if (!reset && !(await isEmpty(prisma))) {
    console.log(`${engine.location} already holds data; nothing seeded (use --reset to replace it)`);
  } else {
    const started = performance.now();
    if (reset) await truncateAll(prisma);
    const keys = await seedDemo(prisma, config.demoApiKey);
    const ms = Math.round(performance.now() - started);
    const counts = Object.entries(await countRows(prisma)).map(([model, n]) => `${n} ${model}`);
    console.log(`seeded ${engine.location}${reset ? ' (reset)' : ''} in ${ms} ms: ${counts.join(', ')}`);
    for (const [holder, secret] of Object.entries(keys)) console.log(`API key of the demo ${holder}: ${secret}`);
  }
} catch (error) {
  console.error(`db:seed failed: ${(error instanceof Error ? error.message : String(error)).split('\n')[0]}`);
  process.exitCode = 1;
} finally {
  await database?.close().catch(() => {});
}
// The WebAssembly schema engine leaves a timer behind that would hold the process for ~10 s.
process.exit();
