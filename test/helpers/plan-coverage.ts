import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import {
  getNamedType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  Kind,
  parse,
  typeFromAST,
  validate,
  type DocumentNode,
  type GraphQLInputType,
  type GraphQLSchema,
} from 'graphql';
import { resolvePrincipal } from '../../src/auth/principal.js';
import { readPlanFor } from '../../src/read-plans/plugin.js';
import type { Context } from '../../src/schema/context.js';
import { createLoaders } from '../../src/schema/loaders.js';

// What share of the query operations clients send the read planner answers, and why it leaves the
// others: for `npm run plan-coverage` and the test that keeps the documented queries planned.

/** A query operation found in a file: its document, and the operation's name when it has several. */
export interface FoundQuery {
  source: string;
  document: DocumentNode;
  operationName?: string;
}

const root = join(import.meta.dirname, '..', '..');

function filesUnder(directory: string, pattern: RegExp): string[] {
  return readdirSync(directory).flatMap((name) => {
    const path = join(directory, name);
    if (name === 'node_modules' || name === 'generated') return [];
    if (statSync(path).isDirectory()) return filesUnder(path, pattern);
    return pattern.test(name) ? [path] : [];
  });
}

/** Every query operation of a document text, each its own entry; nothing for text that is no GraphQL. */
function queriesIn(source: string, text: string): FoundQuery[] {
  let document: DocumentNode;
  try {
    document = parse(text);
  } catch {
    return [];
  }
  const operations = document.definitions.filter((node) => node.kind === Kind.OPERATION_DEFINITION);
  return operations
    .filter((operation) => operation.operation === 'query')
    .map((operation) => ({
      source,
      document,
      operationName: operations.length > 1 ? operation.name?.value : undefined,
    }));
}

/** The queries of README.md and docs/*.md (```graphql blocks) and of the web client (*.graphql). */
export function documentedQueries(): FoundQuery[] {
  const markdown = ['README.md', ...filesUnder(join(root, 'docs'), /\.md$/).map((path) => relative(root, path))];
  const fromMarkdown = markdown.flatMap((file) =>
    [...readFileSync(join(root, file), 'utf8').matchAll(/```graphql\n([\s\S]*?)```/g)].flatMap((match) =>
      queriesIn(file, match[1]),
    ),
  );
  const client = filesUnder(join(root, 'examples', 'web-client'), /\.graphql$/);
  return [...fromMarkdown, ...client.flatMap((path) => queriesIn(relative(root, path), readFileSync(path, 'utf8')))];
}

/**
 * The query documents written in the test suite as whole strings (a template with `${...}` is made
 * at run time and is counted apart, as `built`).
 */
export function testQueries(): { found: FoundQuery[]; built: number } {
  let built = 0;
  const found = filesUnder(join(root, 'test'), /\.ts$/).flatMap((path) => {
    const source = relative(root, path);
    const text = readFileSync(path, 'utf8');
    const literals = [...text.matchAll(/'((?:[^'\\\n]|\\.)*)'|"((?:[^"\\\n]|\\.)*)"|`((?:[^`\\]|\\.)*)`/g)];
    return literals.flatMap((match) => {
      const body = (match[1] ?? match[2] ?? match[3]).replace(/\\(.)/g, '$1').trim();
      if (!/^(\{|query\b)/.test(body)) return [];
      if (body.includes('${')) {
        built++;
        return [];
      }
      return queriesIn(source, body);
    });
  });
  return { found, built };
}

/** A value of an input type, made up for a query whose variables a file does not give. */
function sampleOf(type: GraphQLInputType): unknown {
  if (isNonNullType(type)) return sampleOf(type.ofType);
  if (isListType(type)) return [sampleOf(type.ofType)];
  const named = getNamedType(type);
  if (isEnumType(named)) return named.getValues()[0].value;
  if (isInputObjectType(named))
    return Object.fromEntries(
      Object.values(named.getFields())
        .filter((field) => isNonNullType(field.type))
        .map((field) => [field.name, sampleOf(field.type)]),
    );
  const samples: Record<string, unknown> = {
    Int: 1,
    Float: 1,
    String: 'a',
    Boolean: true,
    ID: Buffer.from('Whiteboard:1').toString('base64'),
    DateTime: '2030-01-01T00:00:00.000Z',
  };
  return samples[named.name] ?? null;
}

/** Values for an operation's variables: those given, or made up by type. */
export function sampleVariables(schema: GraphQLSchema, query: FoundQuery): Record<string, unknown> {
  const operation = query.document.definitions.find(
    (node) =>
      node.kind === Kind.OPERATION_DEFINITION && (!query.operationName || node.name?.value === query.operationName),
  );
  if (operation?.kind !== Kind.OPERATION_DEFINITION) return {};
  return Object.fromEntries(
    (operation.variableDefinitions ?? []).map((definition) => {
      const type = typeFromAST(schema, definition.type) as GraphQLInputType | undefined;
      return [definition.variable.name.value, type ? sampleOf(type) : null];
    }),
  );
}

/** A request's context for the holder of `key`, as far as planning reads it. */
export async function contextOf(key: string): Promise<Context> {
  const principal = await resolvePrincipal(key);
  return {
    request: new Request('http://localhost/graphql'),
    credential: { kind: 'API_KEY', secret: key },
    principal,
    live: undefined as never,
    loaders: createLoaders(principal),
  };
}

/** Why the planner leaves an operation to the resolvers, or undefined when it answers it. */
export function planReason(
  schema: GraphQLSchema,
  context: Context,
  document: DocumentNode,
  operationName: string | undefined,
  variables: Record<string, unknown>,
): string | undefined {
  if (validate(schema, document).length) return 'an invalid document (the executor reports it)';
  const plan = readPlanFor(schema, document, operationName, context, variables);
  return typeof plan === 'string' ? plan : undefined;
}

/** Counts of reasons, most frequent first, as lines. */
export function tally(reasons: (string | undefined)[]): { planned: number; total: number; lines: string[] } {
  const counts = new Map<string, number>();
  for (const reason of reasons) if (reason !== undefined) counts.set(reason, (counts.get(reason) ?? 0) + 1);
  const lines = [...counts]
    .sort((a, b) => b[1] - a[1])
    .map(([reason, count]) => `${String(count).padStart(6)}  ${reason}`);
  return { planned: reasons.filter((reason) => reason === undefined).length, total: reasons.length, lines };
}
