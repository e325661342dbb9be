import type { DemoKeys } from '../../src/db/seed/keys.js';
import { sendGraphQL } from './graphql.js';

const create = `mutation($input: CreateWhiteboardInput!) { createWhiteboard(input: $input) { whiteboard { rowId name } } }`;

/** Creates a board named `name` over /graphql with the owner's key and this Idempotency-Key: the status, Retry-After and body. */
export async function createBoardKeyed(gateway: { url: string; keys: DemoKeys }, name: string, key: string) {
  const response = await sendGraphQL(gateway.url, create, {
    variables: { input: { name } },
    key: gateway.keys.owner,
    headers: { 'Idempotency-Key': key },
  });
  return { status: response.status, retryAfter: response.headers.get('retry-after'), body: await response.json() };
}
