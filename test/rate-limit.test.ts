import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { loadConfig } from '../src/config.js';
import { REPORT_MS } from '../src/http/rate-limit/buckets.js';
import { demo } from '../src/db/seed/index.js';
import { keyFor } from './helpers/changes.js';
import { ofTheRequest, startInstance, startTestServer, type TestServer } from './helpers/server.js';
import { sendGraphQL } from './helpers/graphql.js';

// A point every two seconds and five in a full bucket: a burst runs out after five requests, even
// when requests are slow on a loaded machine, and a point comes back two seconds later.
const limited = { RATE_LIMIT: '0.5', RATE_LIMIT_BURST: '5' };
const REDIS_URL = 'redis://127.0.0.1:6379';

type Instance = Awaited<ReturnType<typeof startInstance>>;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Long enough for every instance to have reported what it spent. */
const reported = () => sleep(3 * REPORT_MS);

/** A GraphQL request to an instance, with the answer's status, rate-limit headers and body. */
async function graphql(
  url: string,
  key: string | null,
  query = '{ me { rowId } }',
  variables?: Record<string, unknown>,
) {
  const response = await sendGraphQL(url, query, { variables, key });
  return { status: response.status, headers: response.headers, body: await response.json() };
}

async function rest(url: string, key: string | null, path: string) {
  const response = await fetch(url + path, { headers: key ? { 'x-api-key': key } : {} });
  return { status: response.status, headers: response.headers, body: await response.json() };
}

const remaining = (answer: { headers: Headers }) => Number(answer.headers.get('ratelimit-remaining'));

describe('rate limits', () => {
  it('are off unless RATE_LIMIT is set; RATE_LIMIT_BURST defaults to ten seconds of rate', () => {
    expect(loadConfig({}).rateLimit).toBeUndefined();
    expect(loadConfig({ RATE_LIMIT: '20' }).rateLimit).toMatchObject({ rate: 20, burst: 200 });
    expect(() => loadConfig({ RATE_LIMIT_BURST: '10' })).toThrow('RATE_LIMIT_BURST is set but RATE_LIMIT is not');
    expect(() => loadConfig({ RATE_LIMIT: '-1' })).toThrow('RATE_LIMIT must be a number above 0');
  });
});

describe('rate limits in the database, two instances', () => {
  let a: TestServer;
  let b: Instance;
  beforeAll(async () => {
    a = await startTestServer(limited);
    b = await startInstance(limited);
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it('refuses a burst past the bucket with 429, Retry-After and the RateLimit-* headers; other keys go on; the bucket refills', async () => {
    const answers = [];
    for (let i = 0; i < 7; i++) answers.push(await graphql(a.url, a.keys.owner));
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200, 429, 429]);
    expect(answers.slice(0, 5).map(remaining)).toEqual([4, 3, 2, 1, 0]);
    expect(answers[0].headers.get('ratelimit-limit')).toBe('5');
    expect(answers[0].headers.get('retry-after')).toBeNull();
    const refused = answers[5];
    expect(refused.headers.get('retry-after')).toBe('2');
    expect(refused.headers.get('ratelimit-remaining')).toBe('0');
    expect(Number(refused.headers.get('ratelimit-reset'))).toBeGreaterThanOrEqual(9);
    expect(refused.body.data).toBeUndefined();
    expect(refused.body.errors[0].extensions).toMatchObject({ code: 'RATE_LIMITED', cost: 1, retryAfter: 2 });
    expect(refused.body.errors[0].message).toBe(
      'Rate limit exceeded: this request costs 1 point and the bucket holds 0 of 5; retry in 2 s',
    );

    expect((await graphql(a.url, a.keys.admin)).status).toBe(200);
    await sleep(1_000 * Number(refused.headers.get('retry-after')));
    expect((await graphql(a.url, a.keys.owner)).status).toBe(200);
  });

  it('charges an operation the rows it may return, a point per full page, before it sends any SQL', async () => {
    // 100 boards and 2 streams each: 300 rows, 3 points.
    const query = `query($streams: Int) { whiteboards(first: 100) { edges { node { dataStreams(first: $streams) { totalCount } } } } }`;
    const first = await graphql(a.url, a.keys.member, query, { streams: 2 });
    expect(first.status).toBe(200);
    expect(remaining(first)).toBe(2);
    const { result: second, statements } = await a.countStatements(() =>
      graphql(a.url, a.keys.member, query, { streams: 2 }),
    );
    expect(second.status).toBe(429);
    expect(second.body.errors[0].extensions).toMatchObject({ code: 'RATE_LIMITED', cost: 3, retryAfter: 2 });
    expect(ofTheRequest(statements)).toEqual([]);
    // An operation dearer than the whole bucket runs on a full one rather than never, and leaves a debt.
    const costly = await keyFor(a, demo.users.viewer.email, 'READ_ONLY');
    expect((await graphql(a.url, costly, query, { streams: 9 })).status).toBe(200);
    expect((await graphql(a.url, costly)).headers.get('retry-after')).toBe('12');
  });

  it('charges a REST call once, answering 429 in the legacy form', async () => {
    const key = a.keys.viewer;
    const streams = await rest(a.url, key, '/api/whiteboard/v1/data-stream/?limit=1');
    expect(streams.status).toBe(200);
    expect(remaining(streams)).toBe(4);
    // A nested path reads its parent first: two operations, one charge.
    const [stream] = streams.body;
    const nested = await rest(a.url, key, `/api/whiteboard/v1/${stream.whiteboard_id}/data-stream/${stream.id}/`);
    expect(nested.status).toBe(200);
    expect(remaining(nested)).toBe(3);
    for (let i = 0; i < 3; i++) await rest(a.url, key, '/api/whiteboard/v1/?limit=1');
    const refused = await rest(a.url, key, '/api/whiteboard/v1/?limit=1');
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ detail: expect.stringMatching(/^Rate limit exceeded: this request costs 1 point/) });
    expect(refused.headers.get('retry-after')).toBe('2');
    expect(refused.headers.get('ratelimit-limit')).toBe('5');
  });

  it('counts requests without a valid key per client address, on both doors', async () => {
    const statuses = [];
    for (let i = 0; i < 5; i++) statuses.push((await graphql(a.url, 'wbg_not-a-key')).status);
    expect(statuses).toEqual([401, 401, 401, 401, 401]);
    const refused = await graphql(a.url, null);
    expect(refused.status).toBe(429);
    expect(refused.body.errors[0].extensions.code).toBe('RATE_LIMITED');
    const restRefused = await rest(a.url, null, '/api/whiteboard/v1/');
    expect(restRefused.status).toBe(429);
    expect(restRefused.headers.get('retry-after')).toBe('2');
    // A valid key from the same address has a bucket of its own.
    expect((await graphql(a.url, a.keys.admin)).status).toBe(200);
  });

  it('shares a key’s bucket between instances through the database', async () => {
    const key = await keyFor(a, demo.users.owner.email, 'READ_ONLY');
    for (let i = 0; i < 5; i++) expect((await graphql(a.url, key)).status).toBe(200);
    await reported();
    const onB = await graphql(b.url, key);
    expect(onB.status).toBe(429);
    const newest = await a.database.prisma.apiKey.findFirstOrThrow({ orderBy: { id: 'desc' } });
    const row = await a.database.prisma.rateLimitBucket.findUniqueOrThrow({ where: { key: `key:${newest.id}` } });
    expect(row.tokens).toBeLessThan(1);
  });
});

describe('rate limits in Redis', () => {
  let a: TestServer;
  let b: Instance;
  const prefix = `gateway-test:${randomUUID()}:`;
  const redis = new Redis(REDIS_URL);
  beforeAll(async () => {
    const env = { ...limited, RATE_LIMIT_REDIS_URL: REDIS_URL, RATE_LIMIT_REDIS_PREFIX: prefix };
    a = await startTestServer(env);
    b = await startInstance(env);
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
    redis.disconnect();
  });

  it('shares a key’s bucket between instances through Redis, and leaves the database alone', async () => {
    for (let i = 0; i < 3; i++) expect((await graphql(a.url, a.keys.owner)).status).toBe(200);
    for (let i = 0; i < 2; i++) expect((await graphql(b.url, a.keys.owner)).status).toBe(200);
    await reported();
    const onA = await graphql(a.url, a.keys.owner);
    expect(onA.status).toBe(429);
    expect(onA.headers.get('retry-after')).toBe('2');
    expect((await graphql(b.url, a.keys.owner)).status).toBe(429);
    expect((await graphql(b.url, a.keys.admin)).status).toBe(200);
    expect(await redis.keys(`${prefix}key:*`)).toHaveLength(2);
    expect(await a.database.prisma.rateLimitBucket.count()).toBe(0);
  });
});
