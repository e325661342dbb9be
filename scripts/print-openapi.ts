import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { commandLine } from '../src/cli.js';
import { compileRoutes } from '../src/rest/index.js';
import { openApiDocument } from '../src/rest/openapi.js';
import { schema } from '../src/schema/index.js';

const { positionals } = commandLine(
  `
usage: npm run openapi:print [-- <file>]

Prints the OpenAPI document that /api/openapi.json serves, from the code, with no server running:
to <file> when given, else to standard output. Client code generators (openapi-typescript) read it.
`,
  { allowPositionals: true },
);

const document = `${JSON.stringify(openApiDocument(compileRoutes(schema)), null, 2)}\n`;
// npm runs scripts in the package's directory; INIT_CWD is where it was called from.
if (positionals[0]) writeFileSync(resolve(process.env.INIT_CWD ?? '.', positionals[0]), document);
else process.stdout.write(document);
