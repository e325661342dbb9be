import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig as loadLintConfig, lintFromString } from '@redocly/openapi-core';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { createApp } from '../src/http/app.js';
import { camelCase } from '../src/rest/names.js';
import { legacySchemaNames } from '../src/rest/schema-names.js';
import { schema } from '../src/schema/index.js';

// The served OpenAPI document as a client generator and a linter see it: named schemas with the
// legacy's names, identifier-safe operationIds, and a typed client that compiles.

type Operation = { summary: string; operationId: string; [key: string]: unknown };
interface OpenApi {
  servers: { url: string }[];
  tags: { name: string; description?: string }[];
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, unknown> };
}

const legacy = readFileSync(new URL('../docs/legacy-v1-interface.md', import.meta.url), 'utf8');
/** The legacy's schema names: "These schema names exist in the interface (names only): A, B, ... ." */
const legacyNames = new Set(/\(names only\): (.+?)\. /.exec(legacy)![1].split(', '));

let source: string;
let document: OpenApi;

beforeAll(async () => {
  const app = createApp({ schema, config: loadConfig({}) });
  source = await (await app.request('/api/openapi.json')).text();
  await app.close();
  document = JSON.parse(source);
});

/** Every schema object in `value` outside the components, with its JSON pointer. */
function inlineSchemas(value: unknown, pointer = ''): [string, Record<string, unknown>][] {
  if (!value || typeof value !== 'object') return [];
  const here: [string, Record<string, unknown>][] =
    'schema' in value ? [[`${pointer}/schema`, value.schema as Record<string, unknown>]] : [];
  return [...here, ...Object.entries(value).flatMap(([key, child]) => inlineSchemas(child, `${pointer}/${key}`))];
}

/** Every `$ref` in `value`. */
const refs = (value: unknown): string[] =>
  !value || typeof value !== 'object'
    ? []
    : Object.entries(value).flatMap(([key, child]) => (key === '$ref' ? [child as string] : refs(child)));

describe('the names of the OpenAPI document', () => {
  it("gives its schemas the legacy's names, spelled as the legacy document spells them", () => {
    const names = Object.keys(document.components.schemas);
    for (const name of legacySchemaNames) expect(legacyNames, name).toContain(name);
    expect(names).toEqual(
      expect.arrayContaining([
        'WhiteboardReadSchema',
        'WhiteboardCreateSchema',
        'LibraryClassConfReadSchema',
        'UserRolesInOrganization',
        'HTTPValidationError',
      ]),
    );
    // The legacy's form bodies keep FastAPI's names.
    expect(names).toEqual(expect.arrayContaining([...legacyNames].filter((name) => name.startsWith('Body_'))));
    for (const name of names) expect(name).toMatch(/^[A-Za-z][A-Za-z0-9_]*$/);
  });

  it('refers to every object and enum by $ref, and every $ref resolves', () => {
    const inline = inlineSchemas(document.paths).filter(([, schema]) =>
      JSON.stringify(schema).match(/"(properties|enum)":/),
    );
    expect(inline.map(([pointer]) => pointer)).toEqual([]);
    for (const target of new Set(refs(document))) {
      expect(target).toMatch(/^#\/components\/schemas\//);
      expect(document.components.schemas, target).toHaveProperty([target.split('/').pop()!]);
    }
  });

  it('names each operation with the camelCase of its legacy name, URL-safe and unique', () => {
    const operations = Object.values(document.paths).flatMap((path) => Object.values(path));
    for (const { summary, operationId } of operations) {
      expect(operationId).toMatch(/^[a-z][A-Za-z0-9]*$/);
      expect(operationId.startsWith(camelCase(summary)), `${summary}: ${operationId}`).toBe(true);
    }
    expect(new Set(operations.map((operation) => operation.operationId)).size).toBe(operations.length);
    const ids = operations.map((operation) => operation.operationId);
    expect(ids).toEqual(
      expect.arrayContaining([
        'listUserOrganizations',
        'listUserOrganizationsInControl',
        'deleteWhiteboardInArchive',
        'getWhiteboardDataStreamByWhiteboardId',
      ]),
    );
  });

  it('describes every tag and serves its paths from the root of this server', () => {
    expect(document.servers).toEqual([expect.objectContaining({ url: '/' })]);
    for (const tag of document.tags) expect(tag.description, tag.name).toMatch(/\w/);
  });
});

describe('the OpenAPI document in tools', () => {
  it("passes Redocly's recommended rules (redocly.yaml: all but the legacy trailing slash)", async () => {
    const config = await loadLintConfig({ configPath: new URL('../redocly.yaml', import.meta.url).pathname });
    const problems = await lintFromString({ source, absoluteRef: '/api/openapi.json', config });
    // Warnings the legacy contract brings: paths that read alike (`/v1/{whiteboard_id}/archive/` and
    // `/v1/data-stream/{data_stream_id}/`, which the router tells apart, fixed segments first), and
    // no license, as the service states none.
    const accepted = new Set(['no-ambiguous-paths', 'info-license']);
    const refused = problems.filter((problem) => problem.severity === 'error' || !accepted.has(problem.ruleId));
    expect(
      refused.map((problem) => `${problem.ruleId}: ${problem.message} at ${problem.location[0]?.pointer}`),
    ).toEqual([]);
  });

  it('generates a typed client (openapi-typescript) whose types a script compiles against', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'openapi-client-'));
    try {
      writeFileSync(join(dir, 'api.ts'), astToString(await openapiTS(structuredClone(document) as never)));
      writeFileSync(
        join(dir, 'client.ts'),
        `import type { components, operations, paths } from './api.js';

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type Schemas = components['schemas'];

// The board list answers WhiteboardReadSchema rows, typed down to their nested objects.
type BoardList = paths['/api/whiteboard/v1/']['get']['responses'][200]['content']['application/json'];
export const listAnswersBoards: Equal<BoardList, Schemas['WhiteboardReadSchema'][]> = true;
export const authorEmails = (boards: BoardList): string[] => boards.flatMap((board) => (board.author ? [board.author.email] : []));
// @ts-expect-error a board has no such field: the types are not \`any\`
export const missing = (boards: BoardList) => boards.map((board) => board.no_such_field);

// An operation by its operationId takes the legacy's create schema.
type CreateBody = NonNullable<operations['createWhiteboard']['requestBody']>['content']['application/json'];
export const createTakes: Equal<CreateBody, Schemas['WhiteboardCreateSchema']> = true;
export const owner: Schemas['UserRolesInOrganization'] = 'OWNER';
`,
      );
      const program = ts.createProgram([join(dir, 'client.ts')], {
        strict: true,
        noEmit: true,
        target: ts.ScriptTarget.ES2022,
        module: ts.ModuleKind.NodeNext,
        moduleResolution: ts.ModuleResolutionKind.NodeNext,
        types: [],
      });
      const diagnostics = ts
        .getPreEmitDiagnostics(program)
        .map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
      expect(diagnostics).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
