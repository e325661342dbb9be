import type { HonoRequest } from 'hono';
import { bound, coerce, expected, item, type Source, type ValidationItem } from './coerce.js';
import type { CompiledRoute } from './compile.js';
import type { Param } from './param.js';
import { unknownFilters } from './filters.js';
import { MAX_NESTING } from '../schema/storable.js';
import { isMultipart } from '../files/http.js';

/** Sets `value` at a variable path (`['input', 'rowId']`), making the objects on the way. */
function setAt(target: Record<string, unknown>, path: readonly string[], value: unknown): void {
  let node = target;
  for (const key of path.slice(0, -1)) node = (node[key] ??= {}) as Record<string, unknown>;
  node[path[path.length - 1]] = value;
}

type Read = { variables: Record<string, unknown> } | { errors: ValidationItem[] };

/** FastAPI's answer to a body that is not JSON; Node's message names the position when it can. */
function jsonInvalid(error: Error): ValidationItem {
  const position = Number(/position (\d+)/.exec(error.message)?.[1] ?? 0);
  return {
    type: 'json_invalid',
    loc: ['body', position],
    msg: 'JSON decode error',
    input: {},
    ctx: { error: error.message },
  };
}

/** Whether a parsed JSON value nests containers deeper than `limit`; walked without recursion, so any depth is measured safely. */
function nestedDeeperThan(value: unknown, limit: number): boolean {
  const pending: [unknown, number][] = [[value, 0]];
  while (pending.length) {
    const [next, depth] = pending.pop()!;
    if (typeof next !== 'object' || next === null) continue;
    if (depth === limit) return true;
    for (const item of Object.values(next)) pending.push([item, depth + 1]);
  }
  return false;
}

/** The media type a route's body must have: a form where an upload is expected, JSON everywhere else. */
export const bodyType = (route: Pick<CompiledRoute, 'multipart'>) =>
  route.multipart ? 'multipart/form-data' : 'application/json';

/**
 * The media type a request's body should have had, when it has a body of another type (or of none);
 * undefined when it may be read. A browser page may send `text/plain`, a form or an untyped body to
 * another origin without a preflight, so a JSON route reads JSON only.
 */
export function refusedBodyType(route: CompiledRoute, request: HonoRequest): string | undefined {
  if (!route.body) return undefined;
  const sent = Number(request.header('content-length') ?? 0) > 0 || request.header('transfer-encoding') !== undefined;
  const type = (request.header('content-type') ?? '').split(';')[0].trim().toLowerCase();
  const expected = bodyType(route);
  return sent && type !== expected ? expected : undefined;
}

/** The body as a record of values by legacy name, or undefined when none was sent. */
async function readBody(route: CompiledRoute, request: HonoRequest, errors: ValidationItem[]): Promise<unknown> {
  if (route.multipart) {
    if (!isMultipart(request.header('content-type'))) return undefined;
    const form = await request.formData();
    return Object.fromEntries([...new Set(form.keys())].map((key) => [key, form.get(key)]));
  }
  const text = await request.text();
  if (text.trim() === '') return undefined;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (error) {
    errors.push(jsonInvalid(error as Error));
    return undefined;
  }
  // Bounded before anything walks it (checks, echoes, the GraphQL variables).
  if (!nestedDeeperThan(body, MAX_NESTING)) return body;
  errors.push({
    type: 'json_invalid',
    loc: ['body'],
    msg: 'JSON decode error',
    input: {},
    ctx: { error: `JSON nested deeper than ${MAX_NESTING} levels` },
  });
  return undefined;
}

/** `-created_at,name` -> `[{ field: 'createdAt', direction: 'DESC' }, { field: 'name', direction: 'ASC' }]`. */
function ordering(param: Param, raw: string, loc: (string | number)[], errors: ValidationItem[]) {
  const keys = raw.split(',').map((key) => key.trim());
  const unknown = keys.filter((key) => !param.ordering!.has(key.replace(/^-/, '')));
  if (unknown.length) {
    const list = expected([...param.ordering!.keys()]);
    errors.push({
      type: 'enum',
      loc,
      msg: `Input should be ${list}, each optionally prefixed with '-'`,
      input: raw,
      ctx: { expected: list },
    });
    return undefined;
  }
  return keys.map((key) => ({
    field: param.ordering!.get(key.replace(/^-/, '')),
    direction: key.startsWith('-') ? 'DESC' : 'ASC',
  }));
}

function parameterValue(param: Param, raw: unknown, source: Source, errors: ValidationItem[]): unknown {
  const loc = [param.in, param.name];
  if (param.ordering) return ordering(param, raw as string, loc, errors);
  const before = errors.length;
  const value = coerce(param.type!, raw, source, loc, errors);
  if (errors.length > before || typeof value !== 'number') return value;
  if (param.minimum !== undefined && value < param.minimum) errors.push(bound('ge', param.minimum, loc, raw));
  else if (param.maximum !== undefined && value > param.maximum) errors.push(bound('le', param.maximum, loc, raw));
  return value;
}

/**
 * Reads a request's path, query and body values into the operation's variables, checking each
 * against its GraphQL type; every problem is reported at once, as FastAPI does, before anything runs.
 */
export async function readRequest(route: CompiledRoute, request: HonoRequest): Promise<Read> {
  const errors: ValidationItem[] = [];
  const variables: Record<string, unknown> = {};
  const path = request.param() as Record<string, string>;
  const query = request.query();
  let body: unknown;
  if (route.body) {
    body = await readBody(route, request, errors);
    if (body === undefined && route.bodyRequired && !errors.length) errors.push(item('missing', ['body'], null));
    if (body !== undefined && (typeof body !== 'object' || body === null || Array.isArray(body))) {
      errors.push(item('model_attributes_type', ['body'], body));
    }
  }
  const fields =
    typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : undefined;
  const source: Source = route.multipart ? 'text' : 'json';

  for (const param of route.params) {
    if (param.in === 'body' && !fields) continue;
    const raw = param.in === 'path' ? path[param.name] : param.in === 'query' ? query[param.name] : fields![param.name];
    let value: unknown;
    if (raw === undefined) {
      if (param.required) errors.push(item('missing', [param.in, param.name], param.in === 'body' ? fields : null));
      if (param.default === undefined) continue;
      value = param.default;
    } else {
      value = parameterValue(param, raw, param.in === 'body' ? source : 'text', errors);
    }
    if (param.target) setAt(variables, param.target, value);
  }
  errors.push(...unknownFilters(route.params, query));
  // An input whose fields are all optional is still sent, as an empty object.
  if (route.body) variables[route.body] ??= {};
  return errors.length ? { errors } : { variables };
}
