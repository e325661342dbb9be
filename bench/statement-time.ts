/**
 * `npm run bench:statement -- [--runs N] [--rounds N] [--values JSON] [--vary K:N] FILE.sql...`:
 * PostgreSQL's execution time of each statement on the bench's data set, sent as the gateway sends
 * it (a named prepared statement with its parameters, so a generic plan once PostgreSQL prefers one),
 * read from pg_stat_statements. bench:sql counts instructions of a plan made for the literal values;
 * this times the plan the server really keeps, where a parameter can change the choice.
 */
import { readFile } from 'node:fs/promises';
import pg from 'pg';
import { commandLine } from '../src/cli.js';
import { cleanup, cleanupOnSignals } from './cleanup.js';
import { clusterWithDataset } from './data-cluster.js';
import { rowsOf } from './dataset.js';
import { executionTime } from './postgres.js';

const { values, positionals } = commandLine(
  `
usage: npm run bench:statement -- [--runs N] [--rounds N] [--values JSON] [--vary K:N] FILE.sql...

Loads the bench's data set into a PostgreSQL cluster of its own (pg_stat_statements loaded), then
executes each file's statement N times in sequence from one client, as a named prepared statement,
after 200 executions of warm-up, and prints its execution time per execution (pg_stat_statements'
total_exec_time over the executions) and the client's round trip; the files in turn, for each round.
The execution time leaves out parsing and planning, as the bench's PostgreSQL ms/req does.

  --runs N     executions timed per file and round (default 2000)
  --rounds N   rounds (default 3)
  --values J   the parameters' values, a JSON array (default [1,[1],1,[1],1,[1]], which suits
               test/sql/nested-board-read.sql: organization 1 and user 1, the owner's key)
  --vary K:N   parameter K (from 1) takes in turn the ids of organization 1's rows among the first N
               of a table (the data set deals rows to the organizations in turn), as the bench's
               by-id cases do: a plan can be cheap for one row and dear for most
`,
  {
    options: {
      runs: { type: 'string', default: '2000' },
      rounds: { type: 'string', default: '3' },
      values: { type: 'string', default: '[1,[1],1,[1],1,[1]]' },
      vary: { type: 'string' },
    },
    allowPositionals: true,
  },
);

/** Executions before each timed run: the first plans, the next five decide between a custom and a generic plan. */
const WARM_UP = 200;

/** The parameters of execution `i`: the given values, with the varied one's id in turn. */
function parametersOf(given: unknown[], vary: string | undefined): (i: number) => unknown[] {
  if (!vary) return () => given;
  const [position, rows] = vary.split(':').map(Number);
  if (!(position >= 1) || !(rows >= 1)) throw new Error(`--vary takes K:N, got "${vary}"`);
  const ids = rowsOf(1, rows);
  return (i) => given.map((value, k) => (k === position - 1 ? ids[i % ids.length] : value));
}

cleanupOnSignals();
try {
  const runs = Number(values.runs);
  const parameters = parametersOf(JSON.parse(values.values) as unknown[], values.vary);
  if (!positionals.length) throw new Error('name at least one .sql file');
  const statements = await Promise.all(
    positionals.map(async (file, n) => {
      const text = (await readFile(file, 'utf8')).replace(/;\s*$/, '');
      const count = Math.max(0, ...[...text.matchAll(/\$(\d+)/g)].map((match) => Number(match[1])));
      return { file, text, name: `timed_${n}`, count };
    }),
  );
  const { url, seconds } = await clusterWithDataset({ shared_preload_libraries: 'pg_stat_statements' });
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query('CREATE EXTENSION pg_stat_statements');
  const time = executionTime({ adminUrl: url, statementStats: true }, 'bench');
  console.error(`data set loaded in ${seconds.toFixed(1)} s; timing ${runs} executions of each statement`);
  console.log('| round | statement | PostgreSQL ms per execution | round trip ms |\n|---:|---|---:|---:|');
  for (let round = 1; round <= Number(values.rounds); round++)
    for (const { file, text, name, count } of statements) {
      const send = (i: number) => client.query({ name, text, values: parameters(i).slice(0, count) });
      for (let i = 0; i < WARM_UP; i++) await send(i);
      await time.reset();
      const started = performance.now();
      for (let i = 0; i < runs; i++) await send(i);
      const roundTrip = (performance.now() - started) / runs;
      const executed = (await time.spentMs()) / runs;
      console.log(`| ${round} | ${file} | ${executed.toFixed(4)} | ${roundTrip.toFixed(4)} |`);
    }
  await client.end();
} finally {
  await cleanup();
}
