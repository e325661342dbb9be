/**
 * `npm run bench:sql -- [--runs N] [--values JSON] FILE.sql...`: the CPU instructions PostgreSQL
 * spends executing each statement on the bench's data set, counted by valgrind's callgrind in a
 * single-user backend. Instructions do not depend on what else the machine is doing, so two forms of
 * a statement compare exactly on a loaded two-core machine where their timings would not.
 */
import { execFile } from 'node:child_process';
import { readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { commandLine } from '../src/cli.js';
import { serverDirectory } from '../test/helpers/private-postgres.js';
import { cleanup, cleanupOnSignals, onCleanup } from './cleanup.js';
import { clusterWithDataset } from './data-cluster.js';

const run = promisify(execFile);

const { values, positionals } = commandLine(
  `
usage: npm run bench:sql -- [--runs N] [--values JSON] [--commits] [--setup SQL] FILE.sql...

Loads the bench's data set into a PostgreSQL cluster of its own, then executes each file's statement
under valgrind's callgrind in a single-user backend and prints the instructions one execution costs
(the first execution, which plans and fills the caches, is left out: runs+1 minus 1 executions).
The statement's parameters ($1, $2, ...) take the values of --values, a JSON array (numbers,
strings, arrays), written into the text as literals; the default suits test/sql/nested-board-read.sql:
organization 1 and user 1, the owner's key. callgrind counts a copy by \`rep movsb\` once per byte, so
a statement that copies large texts counts more than its time says: compare forms within one run.

  --runs N     executions counted (default 3)
  --values J   the parameters' values (default [1,[1],1,[1],1,[1]])
  --commits    each execution its own transaction, its commit counted (for writes: a statement that
               changes rows cannot run inside the loop reads run in)
  --setup SQL  run on the loaded data set before counting (to compare a schema's variants: an index dropped)
`,
  {
    options: {
      runs: { type: 'string', default: '3' },
      values: { type: 'string', default: '[1,[1],1,[1],1,[1]]' },
      commits: { type: 'boolean', default: false },
      setup: { type: 'string' },
    },
    allowPositionals: true,
  },
);

/** A parameter's value as a SQL literal: the statement's own cast (`$1::int`) follows it. */
function literal(value: unknown): string {
  const text = Array.isArray(value) ? `{${value.join(',')}}` : String(value);
  return `'${text.replaceAll("'", "''")}'`;
}

/** The statement with its parameters written in, as one line (the single-user backend reads a line per statement). */
function inlined(sql: string, parameters: unknown[]): string {
  return sql
    .replace(/;\s*$/, '')
    .replace(/\$(\d+)/g, (_, n: string) => {
      if (Number(n) > parameters.length) throw new Error(`the statement uses $${n}: give it with --values`);
      return literal(parameters[Number(n) - 1]);
    })
    .replace(/\s*\n\s*/g, ' ');
}

async function instructions(
  dataDirectory: string,
  statement: string,
  executions: number,
  out: string,
): Promise<number> {
  const script = join(out, 'statements.sql');
  // Planned once and the plan kept (PL/pgSQL's, or a prepared statement's, generic without parameters),
  // so each later execution is execution alone.
  await writeFile(
    script,
    values.commits
      ? `PREPARE counted AS ${statement};\n${'EXECUTE counted;\n'.repeat(executions)}`
      : `DO $do$ BEGIN FOR i IN 1..${executions} LOOP PERFORM * FROM (${statement}) s; END LOOP; END $do$;\n`,
  );
  for (const file of await readdir(out)) if (file.startsWith('callgrind.')) await rm(join(out, file));
  const postgres = join((await run('pg_config', ['--bindir'])).stdout.trim(), 'postgres');
  const command = `valgrind --tool=callgrind --callgrind-out-file=${out}/callgrind.%p ${postgres} --single -D ${dataDirectory} bench < ${script} > ${out}/stdout 2> ${out}/stderr`;
  const asRoot = process.getuid?.() === 0;
  await run(asRoot ? 'runuser' : 'sh', asRoot ? ['-u', 'postgres', '--', 'sh', '-c', command] : ['-c', command]);
  const errors = (await readFile(join(out, 'stderr'), 'utf8')).split('\n').filter((line) => /\bERROR\b/.test(line));
  if (errors.length) throw new Error(`the statement failed: ${errors[0]}`);
  const profile = (await readdir(out)).find((file) => file.startsWith('callgrind.'));
  const totals = /^(?:summary|totals): (\d+)/m.exec(await readFile(join(out, profile!), 'utf8'));
  return Number(totals![1]);
}

cleanupOnSignals();
try {
  const runs = Number(values.runs);
  const parameters = JSON.parse(values.values) as unknown[];
  if (!positionals.length) throw new Error('name at least one .sql file');
  const statements = await Promise.all(
    positionals.map(async (file) => ({ file, sql: inlined(await readFile(file, 'utf8'), parameters) })),
  );
  const { cluster, seconds } = await clusterWithDataset({}, values.setup);
  await cluster.stop();
  console.error(`data set loaded in ${seconds.toFixed(1)} s; counting ${runs} executions of each statement`);
  const out = await serverDirectory('sql-instructions-');
  onCleanup('remove the profiles', () => rm(out, { recursive: true, force: true }));
  console.log('| statement | instructions per execution (millions) |\n|---|---:|');
  for (const { file, sql } of statements) {
    const once = await instructions(cluster.dataDirectory, sql, 1, out);
    const many = await instructions(cluster.dataDirectory, sql, runs + 1, out);
    console.log(`| ${file} | ${((many - once) / runs / 1e6).toFixed(3)} |`);
  }
} finally {
  await cleanup();
}
