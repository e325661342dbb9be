import { startInstance } from './helpers/server.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../src/db/index.js';
import { seedDemo } from '../src/db/seed/index.js';
import type { DemoKeys } from '../src/db/seed/keys.js';

// The embedded database closed under a running gateway (as at shutdown): the caller's key is still
// cached, so the requests get past the key and fail in the resolvers and read plans themselves.

let database: Database;
let keys: DemoKeys;
let instance: Awaited<ReturnType<typeof startInstance>>;
let url: string;

beforeAll(async () => {
  database = await openDatabase({});
  keys = await seedDemo(database.prisma);
  instance = await startInstance();
  url = instance.url;
});

afterAll(async () => {
  await instance?.close();
  await database?.prisma.$disconnect();
});

async function call(path: string, init: RequestInit = {}) {
  const response = await fetch(url + path, {
    ...init,
    headers: { 'content-type': 'application/json', 'x-api-key': keys.owner, ...init.headers },
  });
  return { status: response.status, retryAfter: response.headers.get('retry-after'), body: await response.json() };
}

const graphql = (query: string) =>
  call('/graphql', {
    method: 'POST',
    body: JSON.stringify({ query }),
    headers: { accept: 'application/graphql-response+json' },
  });

describe('an embedded database that is closed', () => {
  it('answers 503 with Retry-After, from a read plan, a resolver and a change, on both doors', async () => {
    expect((await graphql('{ me { rowId } }')).status).toBe(200);
    await database.engine.close();

    const unavailable = {
      status: 503,
      retryAfter: '5',
      body: { errors: [expect.objectContaining({ extensions: { code: 'SERVICE_UNAVAILABLE' } })] },
    };
    // A read plan (one SQL statement), a field without one (me), and a change.
    expect(await graphql('{ whiteboards { totalCount } }')).toEqual(unavailable);
    expect(await graphql('{ me { rowId email } }')).toEqual(unavailable);
    expect(
      await graphql('mutation { createWhiteboard(input: { name: "Never written" }) { whiteboard { rowId } } }'),
    ).toEqual(unavailable);

    const rest = {
      status: 503,
      retryAfter: '5',
      body: { detail: expect.stringMatching(/database cannot be reached/) },
    };
    expect(await call('/api/whiteboard/v1/')).toEqual(rest);
    expect(
      await call('/api/whiteboard/v1/', { method: 'POST', body: JSON.stringify({ name: 'Never posted' }) }),
    ).toEqual(rest);
  });
});
