// npm run schema:print: rewrites schema.graphql from the code.
import { writeFileSync } from 'node:fs';
import { printSortedSchema } from '../src/schema/print.js';

writeFileSync(new URL('../schema.graphql', import.meta.url), printSortedSchema());
console.log('wrote schema.graphql');
