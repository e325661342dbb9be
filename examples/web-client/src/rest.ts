import createClient from 'openapi-fetch';
import type { paths } from './generated/rest.js';

/** The legacy REST routes, typed from the gateway's OpenAPI document (npm run generate:rest). */
export function restClient(gateway: { url: string; key: string }) {
  return createClient<paths>({ baseUrl: gateway.url, headers: { 'X-API-KEY': gateway.key } });
}

/** The boards over `GET /api/whiteboard/v1/`, and the total the list reports in `X-Total-Count`. */
export async function boardsOverRest(gateway: { url: string; key: string }) {
  const { data, error, response } = await restClient(gateway).GET('/api/whiteboard/v1/', {
    params: { query: { limit: 20 } },
  });
  if (error) throw new Error(`GET /api/whiteboard/v1/ answered ${response.status}: ${JSON.stringify(error)}`);
  return { boards: data, total: Number(response.headers.get('X-Total-Count')) };
}
