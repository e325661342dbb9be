import { getNullableType, isListType, print } from 'graphql';
import type { CompiledRoute, Param } from './compile.js';
import { inputSchema, nonNull, selectionSchema, type JsonSchema } from './json-schema.js';
import { operationIds } from './operation-ids.js';
import { defaultLimit, maxLimit } from './route.js';
import { groupDescriptions } from './tags.js';

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: JsonSchema) => ({ 'application/json': { schema } });

// FastAPI's own schemas for its error bodies (named in the legacy interface), and the Info answer's.
const components = {
  ValidationError: {
    type: 'object',
    properties: {
      loc: { type: 'array', items: { anyOf: [{ type: 'string' }, { type: 'integer' }] } },
      msg: { type: 'string' },
      type: { type: 'string' },
      input: {},
      ctx: { type: 'object' },
    },
    required: ['loc', 'msg', 'type'],
  },
  HTTPValidationError: { type: 'object', properties: { detail: { type: 'array', items: ref('ValidationError') } } },
  HTTPError: { type: 'object', properties: { detail: { type: 'string' } }, required: ['detail'] },
  Choice: { type: 'object', properties: { value: { type: 'string' }, label: { type: 'string' } }, required: ['value', 'label'] },
  FilterFieldInfo: {
    type: 'object',
    properties: { name: { type: 'string' }, type: { type: 'string' }, choices: { type: 'array', items: ref('Choice') } },
    required: ['name', 'type'],
  },
  ListInfo: {
    type: 'object',
    properties: { total_count: { type: 'integer' }, fields: { type: 'array', items: ref('FilterFieldInfo') } },
    required: ['total_count', 'fields'],
  },
};

const error = (description: string, schema = 'HTTPError') => ({ description, content: json(ref(schema)) });

function paramSchema(param: Param): JsonSchema {
  const base = param.type ? nonNull(inputSchema(param.type)) : { type: 'string' };
  return {
    ...base,
    ...(param.default !== undefined ? { default: param.default } : {}),
    ...(param.minimum !== undefined ? { minimum: param.minimum } : {}),
    ...(param.maximum !== undefined ? { maximum: param.maximum } : {}),
  };
}

function parameter(param: Param) {
  return {
    name: param.name,
    in: param.in,
    required: param.required,
    ...(param.description ? { description: param.description } : {}),
    // Lists travel comma-separated: `id__in=1,2`.
    ...(param.type && isListType(getNullableType(param.type)) ? { style: 'form', explode: false } : {}),
    schema: paramSchema(param),
  };
}

function requestBody(route: CompiledRoute) {
  if (!route.body) return undefined;
  const fields = route.params.filter((param) => param.in === 'body');
  const built = !route.invalid.length;
  const schema = {
    type: 'object',
    properties: Object.fromEntries(fields.map((field) => [field.name, { ...inputSchema(field.type!), ...(field.description ? { description: field.description } : {}) }])),
    required: fields.filter((field) => field.required).map((field) => field.name),
  };
  return { required: built && route.bodyRequired, content: { [route.multipart ? 'multipart/form-data' : 'application/json']: { schema } } };
}

/** The answer's schema, from the operation's selection and the GraphQL types it selects. */
function answerSchema(route: CompiledRoute): JsonSchema {
  if (route.kind === 'info') return ref('ListInfo');
  if (!route.rootField) return {};
  const root = nonNull(selectionSchema(route.rootField.type, route.root.selectionSet)) as { properties: Record<string, JsonSchema> };
  switch (route.kind) {
    case 'list':
    case 'filter': {
      const edges = nonNull(root.properties.edges) as { items: { properties: { node: JsonSchema } } };
      return { type: 'array', items: edges.items.properties.node };
    }
    case 'payload':
      return nonNull(root.properties[route.payloadKey!]);
    default:
      return root;
  }
}

function responses(route: CompiledRoute) {
  const status = String(route.status ?? (route.kind === 'empty' ? 204 : 200));
  const success =
    route.kind === 'empty'
      ? { description: 'Done' }
      : {
          description: 'Successful Response',
          content: json(answerSchema(route)),
          ...(route.kind === 'list' || route.kind === 'filter'
            ? { headers: { 'X-Total-Count': { description: 'Rows matching, over all pages.', schema: { type: 'integer' } } } }
            : {}),
        };
  return {
    [status]: success,
    403: error('Not authenticated (missing or invalid X-API-KEY), or not permitted'),
    ...(route.kind === 'object' || route.kind === 'payload' || route.kind === 'empty' ? { 404: error('Not found') } : {}),
    ...(route.method !== 'GET' ? { 409: error('Conflict: the change would break a rule (a row still in use, say)') } : {}),
    422: error('Parameter Error', 'HTTPValidationError'),
    ...(route.invalid.length ? { 501: error('Not implemented yet: its GraphQL side is not built') } : {}),
  };
}

function description(route: CompiledRoute): string {
  const state = route.invalid.length ? `**Not implemented yet**: answers 501 until GraphQL ${route.notBuilt.join(', ') || 'has what it needs'} is built.\n\n` : '';
  return `${state}Runs this GraphQL operation:\n\n\`\`\`graphql\n${print(route.document)}\n\`\`\``;
}

/**
 * The OpenAPI 3.1 document of the table: one operation per route, summary and tag the legacy name
 * and group, operationId its camelCase (operation-ids.ts), parameters and bodies typed from the
 * GraphQL variables, answers from the selections.
 */
export function openApiDocument(routes: CompiledRoute[]): Record<string, unknown> {
  const ids = operationIds(routes);
  const paths: Record<string, Record<string, unknown>> = {};
  routes.forEach((route, index) => {
    const parameters = route.params.filter((param) => param.in !== 'body').map(parameter);
    (paths[route.path] ??= {})[route.method.toLowerCase()] = {
      tags: [route.group],
      summary: route.name,
      operationId: ids[index],
      description: description(route),
      ...(parameters.length ? { parameters } : {}),
      ...(route.body ? { requestBody: requestBody(route) } : {}),
      responses: responses(route),
    };
  });
  return {
    openapi: '3.1.0',
    info: {
      title: 'Whiteboard gateway: legacy REST v1',
      version: '1',
      description: `Every legacy /api/.../v1/ operation, answered by the GraphQL gateway at /graphql. Send the X-API-KEY header. Lists take limit (default ${defaultLimit}, at most ${maxLimit}) and offset and send the total in X-Total-Count.`,
    },
    // The paths are absolute from the root of the server that serves this document.
    servers: [{ url: '/', description: 'This gateway' }],
    tags: [...new Set(routes.map((route) => route.group))].map((name) => ({ name, description: groupDescriptions[name] })),
    paths,
    components: { schemas: components, securitySchemes: { APIKeyHeader: { type: 'apiKey', in: 'header', name: 'X-API-KEY' } } },
    security: [{ APIKeyHeader: [] }],
  };
}
