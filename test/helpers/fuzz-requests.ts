import fc from 'fast-check';
import { getNamedType, isLeafType, isNonNullType, type GraphQLSchema } from 'graphql';
import { fromInputType, fromSchema, hostile, validOrNot, type JsonSchema } from './arbitraries.js';
import { rest, type RestResponse } from './rest.js';

// The fuzz suite's requests, also sent by `npm run memory:embedded` to a running server.

export interface Operation {
  method: string;
  path: string;
  parameters?: { name: string; in: 'path' | 'query'; required?: boolean; schema: JsonSchema }[];
  requestBody?: { content: Record<string, { schema: JsonSchema }> };
  responses: Record<string, { content?: Record<string, { schema: JsonSchema }> }>;
}

export interface FuzzRequest {
  path: string;
  json?: unknown;
  form?: Record<string, unknown>;
}

/** The operations of the gateway's OpenAPI document at `url`, and its component schemas. */
export async function openApiOperations(
  url: string,
): Promise<{ operations: Operation[]; components: Record<string, JsonSchema> }> {
  const document = await (await fetch(`${url}/api/openapi.json`)).json();
  const operations = Object.entries(document.paths as Record<string, Record<string, Operation>>).flatMap(
    ([path, methods]) =>
      Object.entries(methods).map(([method, operation]) => ({ ...operation, method: method.toUpperCase(), path })),
  );
  return { operations, components: document.components.schemas };
}

/** A request for an operation: path and query parameters, and a body in its media type. */
export function requestFor(operation: Operation, components: Record<string, JsonSchema>): fc.Arbitrary<FuzzRequest> {
  const parameters = operation.parameters ?? [];
  const values = fc.record(
    Object.fromEntries(
      parameters.map((parameter) => [
        parameter.name,
        parameter.in === 'path'
          ? fc.oneof({ weight: 5, arbitrary: fromSchema(parameter.schema, components) }, hostile)
          : validOrNot(parameter.schema, components),
      ]),
    ),
    {
      requiredKeys: parameters
        .filter((parameter) => parameter.in === 'path' || parameter.required)
        .map((parameter) => parameter.name),
    },
  );
  const [mediaType, body] = Object.entries(operation.requestBody?.content ?? {})[0] ?? [];
  const bodies = body ? validOrNot(body.schema, components) : fc.constant(undefined);
  return fc.tuple(values, bodies).map(([given, payload]) => {
    const text = (value: unknown) => encodeURIComponent(typeof value === 'string' ? value : JSON.stringify(value));
    const path = operation.path.replace(/\{(\w+)\}/g, (_, name: string) => text(given[name]));
    const query = parameters
      .filter((parameter) => parameter.in === 'query' && parameter.name in given)
      .map((parameter) => `${parameter.name}=${text(given[parameter.name])}`);
    const url = query.length ? `${path}?${query.join('&')}` : path;
    return mediaType === 'multipart/form-data'
      ? { path: url, form: payload as Record<string, unknown> }
      : { path: url, json: payload };
  });
}

/** Sends a generated request to the gateway at `url` with `key`. */
export function sendRequest(
  url: string,
  operation: Operation,
  request: FuzzRequest,
  key: string,
): Promise<RestResponse> {
  // `rest` falls back to the owner's key only when none is given.
  const server = { url, keys: { owner: key } } as Parameters<typeof rest>[0];
  if (!request.form || typeof request.form !== 'object')
    return rest(server, operation.method, request.path, { key, json: request.json ?? request.form });
  const form = new FormData();
  for (const [name, value] of Object.entries(request.form))
    form.set(name, value instanceof File ? value : typeof value === 'string' ? value : JSON.stringify(value));
  return rest(server, operation.method, request.path, { key, body: form });
}

/** Every GraphQL mutation as a document that takes all its arguments as variables, and their generated values. */
export function mutationCalls(
  schema: GraphQLSchema,
): { name: string; document: string; variables: fc.Arbitrary<Record<string, unknown>> }[] {
  return Object.values(schema.getMutationType()!.getFields()).map((mutation) => {
    const definitions = mutation.args.map((arg) => `$${arg.name}: ${arg.type}`).join(', ');
    const call = mutation.args.map((arg) => `${arg.name}: $${arg.name}`).join(', ');
    const selection = isLeafType(getNamedType(mutation.type)) ? '' : '{ __typename }';
    const document = `mutation Fuzz${definitions ? `(${definitions})` : ''} { ${mutation.name}${call ? `(${call})` : ''} ${selection} }`;
    const variables = fc.record(Object.fromEntries(mutation.args.map((arg) => [arg.name, fromInputType(arg.type)])), {
      requiredKeys: mutation.args.filter((arg) => isNonNullType(arg.type)).map((arg) => arg.name),
    });
    return { name: mutation.name, document, variables };
  });
}
