import { writeFileSync } from 'node:fs';
import { commandLine } from '../src/cli.js';
import { printSortedSchema } from '../src/schema/print.js';

commandLine(`
usage: npm run schema:print

Rewrites schema.graphql, the sorted schema printed from the code (a test fails when it is stale).
`);

writeFileSync(new URL('../schema.graphql', import.meta.url), printSortedSchema());
console.log('wrote schema.graphql');
