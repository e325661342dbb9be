import { startInstance } from './helpers/server.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendGraphQL } from './helpers/graphql.js';
import { openDatabase, type Database } from '../src/db/index.js';
import { seedDemo } from '../src/db/seed/index.js';
import type { DemoKeys } from '../src/db/seed/keys.js';
import { createPrivateCluster, type PrivateCluster } from './helpers/private-postgres.js';

// A real PostgreSQL stopped and started under a running gateway: a cluster of this file's own,
// never the server the other test files share.

let cluster: PrivateCluster;
let database: Database;
let keys: DemoKeys;
let instance: Awaited<ReturnType<typeof startInstance>>;
let url: string;

beforeAll(async () => {
  cluster = await createPrivateCluster();
  await cluster.start();
  database = await openDatabase({ databaseUrl: cluster.url, poolSize: 4 });
  keys = await seedDemo(database.prisma);
  instance = await startInstance();
  url = instance.url;
});

afterAll(async () => {
  await instance?.close();
  await database?.close();
  await cluster?.remove();
});

async function graphql(query: string, variables: Record<string, unknown> = {}, key = keys.owner) {
  const response = await sendGraphQL(url, query, { variables, key });
  return { status: response.status, retryAfter: response.headers.get('retry-after'), body: await response.json() };
}

async function rest(method: string, path: string, json?: unknown) {
  const response = await fetch(url + path, {
    method,
    headers: { 'x-api-key': keys.owner, ...(json ? { 'content-type': 'application/json' } : {}) },
    body: json ? JSON.stringify(json) : undefined,
  });
  return { status: response.status, retryAfter: response.headers.get('retry-after'), body: await response.json() };
}

const boardNames = '{ whiteboards(first: 100) { edges { node { name } } } }';
const createBoard =
  'mutation($name: String!) { createWhiteboard(input: { name: $name }) { whiteboard { rowId name } } }';

/** The answer of every request while the database is down. */
const unavailable = { status: 503, retryAfter: '5' };
const unavailableGraphQL = {
  ...unavailable,
  body: { errors: [expect.objectContaining({ extensions: { code: 'SERVICE_UNAVAILABLE' } })] },
};
const unavailableRest = { ...unavailable, body: { detail: expect.stringMatching(/database cannot be reached/) } };

describe('a database that goes away and comes back', () => {
  it('answers 503 with Retry-After on both doors while it is down, and recovers with every acknowledged write', async () => {
    const before = await graphql(createBoard, { name: 'Written before the outage' });
    expect(before.status).toBe(200);
    const restBefore = await rest('POST', '/api/whiteboard/v1/', { name: 'Posted before the outage' });
    expect(restBefore.status).toBe(201);

    await cluster.stop();

    // The owner's key is cached: its requests fail in the resolvers. The viewer's was never used:
    // its request fails while resolving the key.
    expect(await graphql(boardNames)).toEqual(unavailableGraphQL);
    expect(await graphql(boardNames, {}, keys.viewer)).toEqual(unavailableGraphQL);
    expect(await graphql(createBoard, { name: 'Never written' })).toEqual(unavailableGraphQL);
    // A lookup that fails is not "no such row": the change is 503, not 404 or 422.
    expect(await graphql('mutation { deleteWhiteboard(input: { rowId: 1 }) { deletedRowId } }')).toEqual(
      unavailableGraphQL,
    );
    expect(await rest('GET', '/api/whiteboard/v1/')).toEqual(unavailableRest);
    expect(await rest('GET', `/api/whiteboard/v1/${restBefore.body.id}/`)).toEqual(unavailableRest);
    expect(await rest('POST', '/api/whiteboard/v1/', { name: 'Never posted' })).toEqual(unavailableRest);
    expect((await fetch(`${url}/ready`)).status).toBe(503);

    await cluster.start();

    const deadline = Date.now() + 5_000;
    let after = await graphql(boardNames);
    while (after.status !== 200 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      after = await graphql(boardNames);
    }
    expect(after.status).toBe(200);
    const names = after.body.data.whiteboards.edges.map((edge: { node: { name: string } }) => edge.node.name);
    expect(names).toEqual(expect.arrayContaining(['Written before the outage', 'Posted before the outage']));
    expect(names).not.toContain('Never written');
    expect(names).not.toContain('Never posted');
    expect((await rest('GET', `/api/whiteboard/v1/${restBefore.body.id}/`)).body).toMatchObject({
      name: 'Posted before the outage',
    });
    expect((await graphql(createBoard, { name: 'Written after the outage' })).status).toBe(200);
    expect((await rest('POST', '/api/whiteboard/v1/', { name: 'Posted after the outage' })).status).toBe(201);
  });
});
