import { verbs } from '../verbs.js';
import { webhookDelivery, webhookEndpoint } from '../views.js';

// The gateway's own API, beside the legacy groups: each route runs a GraphQL operation of
// src/schema/webhooks.ts, as theirs do.
const r = verbs('webhook');
const base = '/api/webhook/v1/endpoints';
const endpoints = { field: 'webhookEndpoints', type: 'WebhookEndpoint', select: webhookEndpoint };
const endpoint = { param: 'endpoint_id' };
const withSecret = `secret webhook_endpoint: webhookEndpoint { ${webhookEndpoint} }`;

export default [
  r.filter('List Webhook Endpoints', `${base}/`, endpoints),
  // The answer carries the signing secret, shown this once.
  r.route('Create Webhook Endpoint', 'POST', `${base}/`, {
    kind: 'object',
    status: 201,
    operation: `mutation CreateWebhookEndpoint($input: CreateWebhookEndpointInput!) { createWebhookEndpoint(input: $input) { ${withSecret} } }`,
    body: 'input',
  }),
  r.get('Get Webhook Endpoint', `${base}/{endpoint_id}/`, {
    ...endpoint,
    field: 'webhookEndpoint',
    select: webhookEndpoint,
  }),
  r.update('Update Webhook Endpoint', `${base}/{endpoint_id}/`, {
    ...endpoint,
    type: 'WebhookEndpoint',
    select: webhookEndpoint,
  }),
  r.remove('Delete Webhook Endpoint', `${base}/{endpoint_id}/`, { ...endpoint, type: 'WebhookEndpoint' }),
  ...(['enable', 'disable'] as const).map((verb) =>
    r.act(`${verb[0].toUpperCase()}${verb.slice(1)} Webhook Endpoint`, 'POST', `${base}/{endpoint_id}/${verb}/`, {
      ...endpoint,
      mutation: `${verb}WebhookEndpoint`,
      result: `webhookEndpoint { ${webhookEndpoint} }`,
    }),
  ),
  r.route('Rotate Webhook Endpoint Secret', 'POST', `${base}/{endpoint_id}/rotate-secret/`, {
    kind: 'object',
    operation: `mutation RotateWebhookEndpointSecret($input: RotateWebhookEndpointSecretInput!) { rotateWebhookEndpointSecret(input: $input) { ${withSecret} } }`,
    pathParams: { endpoint_id: 'input.rowId' },
    body: 'input',
  }),
  r.list('List Webhook Deliveries', `${base}/{endpoint_id}/deliveries/`, {
    field: 'webhookDeliveries',
    type: 'WebhookDelivery',
    select: webhookDelivery,
    cursorOnly: true,
    args: {
      endpointId: { path: 'endpoint_id', type: 'Int!' },
      state: { query: 'state', type: 'WebhookDeliveryState' },
      after: { query: 'after', type: 'String' },
    },
  }),
  r.route('Redeliver Webhook Deliveries', 'POST', `${base}/{endpoint_id}/redeliver/`, {
    kind: 'object',
    operation:
      'mutation RedeliverWebhookDeliveries($input: RedeliverWebhookDeliveriesInput!) { redeliverWebhookDeliveries(input: $input) { redelivered_count: redeliveredCount } }',
    pathParams: { endpoint_id: 'input.rowId' },
    body: 'input',
  }),
];
