import { GraphQLError, type DocumentNode, type ExecutionArgs, type GraphQLSchema } from 'graphql';
import type { CompiledRoute } from './compile.js';
import { plannedJson } from '../read-plans/plugin.js';
import { entityTags, noneMatch, strongTags, untagText, untagValue, versionOfTag } from './conditionals.js';
import { fromGraphQLError, notFound, preconditionFailed, type Answer, type GraphQLErrorJson } from './errors.js';

/**
 * The part of Yoga the REST layer runs on: the envelop pipeline that `/graphql` requests go through
 * (context with the caller's key, error masking, operation limits, execution), without the HTTP
 * transport, which the route has already done itself.
 */
export interface GraphQLPipeline {
  getEnveloped(initialContext: { request: Request }): {
    schema: GraphQLSchema;
    contextFactory(): unknown;
    execute(args: ExecutionArgs): unknown;
  };
}

interface GraphQLResult {
  data?: Record<string, unknown> | null;
  errors?: readonly GraphQLErrorJson[];
}

// A list route's `{ totalCount nodes {...} }` as the planner writes it: compact, in the selection's order (sql.ts).
const plannedList = /^\{"totalCount":(\d+),"nodes":/;

/** A kind of answer, and where it is in the data: a route's own, or its answer read's (an `object`). */
type Shaping = Pick<CompiledRoute, 'kind' | 'rootKey' | 'payloadKey' | 'infoFields'> & { status: number };

/**
 * A planned answer's object, or list of nodes, goes out as the statement wrote it, neither parsed
 * nor written again; undefined when the resolvers answered (or the kind shapes otherwise).
 */
function plannedAnswer({ kind, rootKey, status }: Shaping, data: Record<string, unknown>): Answer | undefined {
  if (kind !== 'object' && kind !== 'list' && kind !== 'filter') return undefined;
  const text = plannedJson(data, rootKey);
  if (text === undefined) return undefined;
  if (kind === 'object') return text === 'null' ? notFound() : { status, json: text };
  const list = plannedList.exec(text);
  return list ? { status, json: text.slice(list[0].length, -1), headers: { 'X-Total-Count': list[1] } } : undefined;
}

/** Shapes the data of a successful operation into the answer; see `kind` in route.ts. */
function shape(shaping: Shaping, data: Record<string, unknown>): Answer {
  const planned = plannedAnswer(shaping, data);
  if (planned) return planned;
  const { status } = shaping;
  const value = data[shaping.rootKey] as Record<string, unknown> | null;
  switch (shaping.kind) {
    case 'list':
    case 'filter': {
      const connection = value as { totalCount: number; nodes: unknown[] };
      return { status, body: connection.nodes, headers: { 'X-Total-Count': String(connection.totalCount) } };
    }
    case 'info':
      return {
        status,
        body: { total_count: (value as { totalCount: number }).totalCount, fields: shaping.infoFields },
      };
    case 'object':
      return value == null ? notFound() : { status, body: value };
    case 'payload': {
      const inner = value?.[shaping.payloadKey!];
      return inner == null ? notFound() : { status, body: inner };
    }
    case 'empty':
      return { status };
  }
}

/** The answer without the versions its operation read, with their ETag. */
function tagged(answer: Answer): Answer {
  let tag: string | undefined;
  if (answer.json !== undefined) ({ text: answer.json, tag } = untagText(answer.json));
  else tag = untagValue(answer.body);
  return tag ? { ...answer, headers: { ...answer.headers, ETag: tag } } : answer;
}

/** A row's current tag, read by the GET of its path; undefined when the caller sees no such row. */
async function currentTag(
  pipeline: GraphQLPipeline,
  route: CompiledRoute,
  caller: Request,
  rowId: unknown,
): Promise<string | undefined | GraphQLErrorJson> {
  const read = route.tagRead!;
  const result = await run(pipeline, caller, read.document, read.operationName, { id: rowId });
  if (result.errors?.length) return result.errors[0];
  const answer = shape({ kind: 'object', rootKey: read.rootKey, status: 200 }, result.data ?? {});
  return answer.status === 200 ? tagged(answer).headers?.ETag : undefined;
}

/**
 * If-Match (RFC 9110 13.1.1) as the version the write must find: `*` or no field, none; the one
 * plain tag of a row answered alone, its version, with no read; else (a list, a composite tag, weak
 * or foreign tags) the current tag is read and must be one of the strong tags given, and its
 * version is expected, so a change in between is still caught by the write. A refusal is 412 with
 * the current tag.
 */
async function expectedVersion(
  pipeline: GraphQLPipeline,
  route: CompiledRoute,
  caller: Request,
  variables: Record<string, unknown>,
): Promise<number | undefined | Answer> {
  const tags = entityTags(caller.headers.get('if-match') ?? undefined);
  if (tags === undefined || tags === '*') return undefined;
  const strong = strongTags(tags);
  const version = strong.length === 1 && !route.tagRead!.composite ? versionOfTag(strong[0]) : undefined;
  if (version !== undefined) return version;
  const current = await currentTag(pipeline, route, caller, (variables.input as { rowId?: unknown }).rowId);
  if (typeof current === 'object') return fromGraphQLError(current, route, variables);
  // A row the caller cannot see is not found, preconditions or not (RFC 9110 13.2.1).
  if (current === undefined) return notFound();
  return strong.includes(current) ? versionOfTag(current) : preconditionFailed(current);
}

/** Runs a parsed, validated operation through the envelop pipeline as the caller; a refused context answers as an error. */
async function run(
  pipeline: GraphQLPipeline,
  caller: Request,
  document: DocumentNode,
  operationName: string,
  variableValues: Record<string, unknown>,
): Promise<GraphQLResult> {
  const { schema, contextFactory, execute: executeOperation } = pipeline.getEnveloped({ request: caller });
  try {
    const contextValue = await contextFactory();
    return (await executeOperation({ schema, document, operationName, variableValues, contextValue })) as GraphQLResult;
  } catch (error) {
    // The context refuses a key that went bad after the route checked it.
    if (error instanceof GraphQLError) return { errors: [error as GraphQLErrorJson] };
    throw error;
  }
}

/**
 * Runs a route's operation through the same envelop pipeline as `/graphql` and answers in the legacy
 * form. The operation was parsed and validated against the schema once, when the table was compiled;
 * files travel in the variables, where the multipart parser of `/graphql` puts them too. A row that is
 * not what the path says (another parent's, a board not archived) is not found, as in the legacy
 * service, whose queries joined on the path.
 */
export async function execute(
  pipeline: GraphQLPipeline,
  route: CompiledRoute,
  caller: Request,
  given: Record<string, unknown>,
  pathValues: Record<string, string>,
): Promise<Answer> {
  let variables = given;
  if (route.compiledRowCheck) {
    const { row, equals, document, operationName } = route.compiledRowCheck;
    const check = await run(pipeline, caller, document, operationName, { id: Number(pathValues[row]) });
    if (check.errors?.length) return fromGraphQLError(check.errors[0], route, variables);
    const found = check.data?.row as { value: unknown } | null | undefined;
    if (found?.value !== ('param' in equals ? Number(pathValues[equals.param]) : equals.value)) return notFound();
  }
  const conditional = route.conditional && caller.headers.has('if-match');
  if (conditional) {
    const expected = await expectedVersion(pipeline, route, caller, variables);
    if (typeof expected === 'object') return expected;
    if (expected !== undefined)
      variables = { ...variables, input: { ...(variables.input as object), expectedVersion: expected } };
  }
  const own = route.tagged && !route.compiledAnswer ? route.tagged.document : route.document;
  const result = await run(pipeline, caller, own, route.operationName, variables);
  // A REST answer cannot be partial: the first error decides.
  const error = result.errors?.[0];
  if (error) {
    const stale =
      conditional && error.extensions?.code === 'CONFLICT' && error.extensions.field === 'input.expectedVersion';
    return stale ? preconditionFailed(staleTag(route, error)) : fromGraphQLError(error, route, variables);
  }
  const status = route.status ?? (route.kind === 'empty' ? 204 : 200);
  if (!route.compiledAnswer) {
    const answer = shape({ ...route, status }, result.data ?? {});
    if (!route.tagged || answer.status !== status) return answer;
    const withTag = tagged(answer);
    const etag = withTag.headers?.ETag;
    // If-None-Match (RFC 9110 13.1.2): the caller has this representation already.
    if (route.method === 'GET' && etag && noneMatch(entityTags(caller.headers.get('if-none-match') ?? undefined), etag))
      return { status: 304, headers: { ...answer.headers, ETag: etag } };
    return withTag;
  }
  const written = (result.data?.[route.rootKey] as Record<string, { rowId: number } | null> | null)?.[
    route.payloadKey!
  ];
  if (!written) return notFound();
  const { document, operationName, rootKey } = route.compiledAnswer;
  const read = await run(pipeline, caller, route.tagged?.document ?? document, operationName, { id: written.rowId });
  if (read.errors?.length) return fromGraphQLError(read.errors[0], route, variables);
  const answer = shape({ kind: 'object', rootKey, status }, read.data ?? {});
  return route.tagged ? tagged(answer) : answer;
}

/** The current tag a version conflict tells of, when the row's tag is its version alone. */
function staleTag(route: CompiledRoute, error: GraphQLErrorJson): string | undefined {
  const version = (error.extensions as { currentVersion?: number } | undefined)?.currentVersion;
  return version !== undefined && !route.tagRead?.composite ? `"${version}"` : undefined;
}
