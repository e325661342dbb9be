import {
  getNamedType,
  getOperationAST,
  getNullableType,
  isListType,
  isObjectType,
  print,
  type DocumentNode,
  type FieldNode,
  type GraphQLList,
  type GraphQLOutputType,
  type SelectionSetNode,
} from 'graphql';
import type { CompiledRoute } from './compile.js';
import type { Param } from './param.js';
import { bodyType } from './request.js';
import { JsonSchemas, nonNull, ref, withDescription, type JsonSchema } from './json-schema.js';
import { operationIds } from './operation-ids.js';
import { defaultLimit, maxLimit } from './route.js';
import { bodySchemaName, schemaNaming } from './schema-names.js';
import { groupDescriptions } from './tags.js';

const json = (schema: JsonSchema) => ({ 'application/json': { schema } });

// FastAPI's own schemas for its error bodies (named in the legacy interface), and the Info answer's.
// The `Choice` the choices routes answer (GraphQL's Choice type, with its descriptions) replaces this plain one.
const fixedSchemas: Record<string, JsonSchema> = {
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
  Choice: {
    type: 'object',
    properties: { value: { type: 'string' }, label: { type: 'string' } },
    required: ['value', 'label'],
  },
  FilterFieldInfo: {
    type: 'object',
    properties: {
      name: { type: 'string' },
      type: { type: 'string' },
      choices: { type: 'array', items: ref('Choice') },
    },
    required: ['name', 'type'],
  },
  ListInfo: {
    type: 'object',
    properties: { total_count: { type: 'integer' }, fields: { type: 'array', items: ref('FilterFieldInfo') } },
    required: ['total_count', 'fields'],
  },
};

const error = (description: string, schema = 'HTTPError') => ({ description, content: json(ref(schema)) });

function paramSchema(param: Param, schemas: JsonSchemas): JsonSchema {
  const base = param.type ? nonNull(schemas.input(param.type)) : { type: 'string' };
  return {
    ...base,
    ...(param.default !== undefined ? { default: param.default } : {}),
    ...(param.minimum !== undefined ? { minimum: param.minimum } : {}),
    ...(param.maximum !== undefined ? { maximum: param.maximum } : {}),
  };
}

function parameter(param: Param, schemas: JsonSchemas) {
  return {
    name: param.name,
    in: param.in,
    required: param.required,
    ...(param.description ? { description: param.description } : {}),
    // Lists travel comma-separated: `id__in=1,2`.
    ...(param.type && isListType(getNullableType(param.type)) ? { style: 'form', explode: false } : {}),
    schema: paramSchema(param, schemas),
  };
}

function requestBody(route: CompiledRoute, schemas: JsonSchemas) {
  const fields = route.params.filter((param) => param.in === 'body');
  const schema = schemas.define(bodySchemaName(route), {
    type: 'object',
    properties: Object.fromEntries(
      fields.map((field) => [field.name, withDescription(schemas.input(field.type!), field.description)]),
    ),
    required: fields.filter((field) => field.required).map((field) => field.name),
  });
  return {
    required: route.bodyRequired,
    content: { [bodyType(route)]: { schema } },
  };
}

/** The type and selection of the field at `key` of a selection (a connection's `nodes`, a payload's row). */
function fieldAt(type: GraphQLOutputType, selectionSet: SelectionSetNode | undefined, key: string) {
  const field = selectionSet?.selections.find(
    (selection): selection is FieldNode =>
      selection.kind === 'Field' && (selection.alias ?? selection.name).value === key,
  );
  const named = getNamedType(type);
  if (!field || !isObjectType(named)) throw new Error(`OpenAPI: no field ${key} in the selection of ${named.name}`);
  return { type: named.getFields()[field.name.value].type, selectionSet: field.selectionSet };
}

/** The answer's schema, from the operation's selection and the GraphQL types it selects. */
function answerSchema(route: CompiledRoute, schemas: JsonSchemas): JsonSchema {
  if (route.kind === 'info') return ref('ListInfo');
  if (!route.rootField) return {};
  const root = { type: route.rootField.type, selectionSet: route.root.selectionSet };
  switch (route.kind) {
    case 'list':
    case 'filter': {
      // The connection's nodes, as a plain array.
      const nodes = fieldAt(root.type, root.selectionSet, 'nodes');
      const item = (getNullableType(nodes.type) as GraphQLList<GraphQLOutputType>).ofType;
      return { type: 'array', items: schemas.selection(item, nodes.selectionSet) };
    }
    case 'payload': {
      const answer = route.compiledAnswer;
      if (answer?.rootField) return nonNull(schemas.selection(answer.rootField.type, answer.root.selectionSet));
      const row = fieldAt(root.type, root.selectionSet, route.payloadKey!);
      return nonNull(schemas.selection(row.type, row.selectionSet));
    }
    default:
      return nonNull(schemas.selection(root.type, root.selectionSet));
  }
}

const etag = {
  ETag: {
    description:
      'The strong entity tag of the row answered: `"<version>"`, or `"<version>.<version>..."` when the answer embeds other rows (theirs, in order).',
    schema: { type: 'string' },
  },
};

/** The conditional request headers of a row's route (RFC 9110): If-None-Match on its GET, If-Match on its changes. */
function conditionalHeaders(route: CompiledRoute) {
  if (route.method === 'GET' && route.tagged)
    return [
      {
        name: 'If-None-Match',
        in: 'header',
        required: false,
        description: 'ETags the caller holds (weak comparison, or `*`): 304 without a body when one is current.',
        schema: { type: 'string' },
      },
    ];
  if (route.conditional)
    return [
      {
        name: 'If-Match',
        in: 'header',
        required: false,
        description:
          'Change the row only if its current ETag is one of these (strong comparison: weak tags never match; `*`: any); else 412 and nothing changes. Without it, no check.',
        schema: { type: 'string' },
      },
    ];
  return [];
}

const retryAfter = {
  'Retry-After': { description: 'Seconds to wait before asking again.', schema: { type: 'integer' } },
};

/** A POST route that runs a mutation as a caller honours Idempotency-Key (src/http/idempotency.ts). */
const keyed = (route: CompiledRoute) =>
  route.method === 'POST' && !route.public && getOperationAST(route.document)?.operation === 'mutation';

const idempotencyKey = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Makes the change at most once: the same request sent again with the same key answers the first answer again (Idempotent-Replayed: true) and changes nothing, for IDEMPOTENCY_TTL_HOURS (24 h). Another request with the key is 422; while the first runs, 409 with Retry-After. Send a new key (a UUID) per change, and the same key on its retry.',
  schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7e]+$' },
};

function responses(route: CompiledRoute, schemas: JsonSchemas) {
  const status = String(route.status ?? (route.kind === 'empty' ? 204 : 200));
  const replayed = keyed(route)
    ? {
        'Idempotent-Replayed': {
          description: 'true: the answer kept for this Idempotency-Key, given again; nothing ran.',
          schema: { type: 'string', const: 'true' },
        },
      }
    : {};
  const headers = {
    ...(route.kind === 'list' || route.kind === 'filter'
      ? { 'X-Total-Count': { description: 'Rows matching, over all pages.', schema: { type: 'integer' } } }
      : {}),
    ...(route.tagged ? etag : {}),
    ...replayed,
  };
  const success = {
    ...(route.kind === 'empty'
      ? { description: 'Done' }
      : { description: 'Successful Response', content: json(answerSchema(route, schemas)) }),
    ...(Object.keys(headers).length ? { headers } : {}),
  };
  return {
    [status]: success,
    ...(route.method === 'GET' && route.tagged
      ? { 304: { description: 'Not Modified: the ETag in If-None-Match is current; no body', headers: etag } }
      : {}),
    401: {
      ...error('A bearer token refused: the reason code in detail, as in WWW-Authenticate'),
      headers: {
        'WWW-Authenticate': { description: "RFC 6750's challenge naming the reason.", schema: { type: 'string' } },
      },
    },
    403: {
      ...error(
        route.public
          ? 'Not permitted'
          : 'Not authenticated (missing or invalid X-API-KEY), or not permitted; a bearer token without the gateway scopes (INSUFFICIENT_SCOPE)',
      ),
      headers: {
        'WWW-Authenticate': {
          description: "For a bearer token without the gateway scopes: RFC 6750's insufficient_scope challenge.",
          schema: { type: 'string' },
        },
      },
    },
    ...(route.kind === 'object' || route.kind === 'payload' || route.kind === 'empty'
      ? { 404: error('Not found') }
      : {}),
    ...(keyed(route) ? { 400: error('The Idempotency-Key header is not 1 to 255 printable ASCII characters') } : {}),
    ...(route.method !== 'GET'
      ? {
          409: keyed(route)
            ? {
                ...error(
                  'Conflict: the change would break a rule (a row still in use, say); or a request with this Idempotency-Key is still running (nothing ran: ask again after Retry-After seconds)',
                ),
                headers: retryAfter,
              }
            : error('Conflict: the change would break a rule (a row still in use, say)'),
        }
      : {}),
    ...(route.conditional
      ? {
          412: {
            ...error('Precondition Failed: the row changed since the ETag in If-Match; nothing was changed'),
            headers: etag,
          },
        }
      : {}),
    ...(route.body ? { 415: error(`Unsupported Media Type: a body that is not ${bodyType(route)}`) } : {}),
    422: keyed(route)
      ? {
          description: 'Parameter Error; or the Idempotency-Key was sent before with another request (HTTPError)',
          content: json({ oneOf: [ref('HTTPValidationError'), ref('HTTPError')] }),
        }
      : error('Parameter Error', 'HTTPValidationError'),
    503: {
      ...error(
        route.method === 'GET'
          ? 'Service unavailable: the database cannot be reached; ask again after Retry-After seconds'
          : 'Service unavailable: the database cannot be reached; ask again after Retry-After seconds. Or the connection was lost while the change committed: it may or may not have been made; send it again with the same Idempotency-Key',
      ),
      headers: retryAfter,
    },
    504: {
      ...error(
        'Timeout: a statement ran past DATABASE_STATEMENT_TIMEOUT_MS, or waited past DATABASE_LOCK_TIMEOUT_MS for a row another change holds; nothing was changed; ask again after Retry-After seconds',
      ),
      headers: retryAfter,
    },
  };
}

const graphqlBlock = (document: DocumentNode) => `\n\n\`\`\`graphql\n${print(document)}\n\`\`\``;

function description(route: CompiledRoute): string {
  const access = route.public ? 'Needs no API key. ' : '';
  const answer = route.compiledAnswer
    ? `\n\nThen answers the written row as this query reads it:${graphqlBlock(route.compiledAnswer.document)}`
    : '';
  return `${access}Runs this GraphQL operation:${graphqlBlock(route.document)}${answer}`;
}

/**
 * The OpenAPI 3.1 document of the table: one operation per route, summary and tag the legacy name
 * and group, operationId its camelCase (operation-ids.ts), parameters and bodies typed from the
 * GraphQL variables, answers from the selections; objects and enums are named schemas, with the
 * legacy's names where it has them (schema-names.ts).
 */
export function openApiDocument(routes: CompiledRoute[]): Record<string, unknown> {
  const schemas = new JsonSchemas(schemaNaming);
  const ids = operationIds(routes);
  const paths: Record<string, Record<string, unknown>> = {};
  routes.forEach((route, index) => {
    const parameters = [
      ...route.params.filter((param) => param.in !== 'body').map((param) => parameter(param, schemas)),
      ...(keyed(route) ? [idempotencyKey] : []),
      ...conditionalHeaders(route),
    ];
    (paths[route.path] ??= {})[route.method.toLowerCase()] = {
      tags: [route.group],
      summary: route.name,
      operationId: ids[index],
      description: description(route),
      ...(parameters.length ? { parameters } : {}),
      ...(route.body ? { requestBody: requestBody(route, schemas) } : {}),
      responses: responses(route, schemas),
      ...(route.public ? { security: [] } : {}),
    };
  });
  return {
    openapi: '3.1.0',
    info: {
      title: 'Whiteboard gateway: legacy REST v1',
      version: '1',
      description: `Every legacy /api/.../v1/ operation, answered by the GraphQL gateway at /graphql. Send the X-API-KEY header, or Authorization: Bearer with an access token of the gateway's OpenID Connect issuer. Lists take limit (default ${defaultLimit}, at most ${maxLimit}) and offset and send the total in X-Total-Count.`,
    },
    // The paths are absolute from the root of the server that serves this document.
    servers: [{ url: '/', description: 'This gateway' }],
    tags: [...new Set(routes.map((route) => route.group))].map((name) => ({
      name,
      description: groupDescriptions[name],
    })),
    paths,
    components: {
      schemas: { ...fixedSchemas, ...schemas.schemas },
      securitySchemes: {
        APIKeyHeader: { type: 'apiKey', in: 'header', name: 'X-API-KEY' },
        BearerToken: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
      },
    },
    security: [{ APIKeyHeader: [] }, { BearerToken: [] }],
  };
}
