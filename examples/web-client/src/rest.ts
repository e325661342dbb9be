import createClient from 'openapi-fetch';
import type { paths } from './generated/rest.js';
import type { Gateway } from './graphql.js';

/** The legacy REST routes, typed from the gateway's OpenAPI document (npm run generate:rest), with the caller's current credentials. */
export async function restClient(gateway: Gateway) {
  return createClient<paths>({ baseUrl: gateway.url, headers: await gateway.credentials() });
}

/** The boards over `GET /api/whiteboard/v1/`, and the total the list reports in `X-Total-Count`. */
export async function boardsOverRest(gateway: Gateway) {
  const { data, error, response } = await (await restClient(gateway)).GET('/api/whiteboard/v1/', {
    params: { query: { limit: 20 } },
  });
  if (error) throw new Error(`GET /api/whiteboard/v1/ answered ${response.status}: ${JSON.stringify(error)}`);
  return { boards: data, total: Number(response.headers.get('X-Total-Count')) };
}
