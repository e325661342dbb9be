import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../src/db/index.js';
import type { DemoKeys } from '../src/db/seed/keys.js';
import { firstBoard, type DemoBoard } from './helpers/demo-ids.js';
import { openTestDatabase, postgresServerUrl } from './helpers/database.js';
import { pngBytes, uploadFile } from './helpers/files.js';
import { subscribeSse, subscribeWs } from './helpers/live.js';
import { AUDIENCE, demoAccounts, TestProvider } from './helpers/oidc-provider.js';
import { runScript, startGateway, type GatewayProcess } from './helpers/processes.js';
import { rest } from './helpers/rest.js';

// A fleet shares changes through PostgreSQL's NOTIFY and files through its tables: whatever engine
// the other files run on, this one makes a database of its own on a PostgreSQL server.

let database: Database;
let keys: DemoKeys;
let drop: () => Promise<void>;
let a: GatewayProcess;
let b: GatewayProcess;
let board: DemoBoard;
let provider: TestProvider;
let env: Record<string, string>;

beforeAll(async () => {
  const opened = await openTestDatabase(postgresServerUrl());
  ({ database, keys, drop } = opened);
  provider = await TestProvider.start({ accounts: demoAccounts() });
  env = {
    DATABASE_URL: opened.url!,
    DATABASE_POOL_SIZE: '3',
    OIDC_ISSUER: provider.issuer,
    OIDC_AUDIENCE: AUDIENCE,
  };
  [a, b] = await Promise.all([startGateway(env, keys), startGateway(env, keys)]);
  board = await firstBoard(a);
});
afterAll(async () => {
  expect(await Promise.all([a?.stop(), b?.stop()])).toEqual([0, 0]);
  await provider?.close();
  await drop?.();
});

const boardEvents = `subscription($id: Int!) { whiteboardEvents(whiteboardId: $id) {
  __typename ... on LiveEvent { kind type rowId } ... on NodeChangedEvent { node { ... on Whiteboard { name } } }
} }`;
const rename = `mutation($rowId: Int!, $name: String!) { updateWhiteboard(input: { rowId: $rowId, name: $name }) { whiteboard { name } } }`;

describe('two gateway processes on one PostgreSQL database', () => {
  it('tells a subscriber on B, within a second, of a mutation and of a REST write sent to A', async () => {
    const events = await subscribeSse(b.url, keys.viewer, boardEvents, { id: board.rowId });
    let sentAt = Date.now();
    await a.graphql(rename, { rowId: board.rowId, name: 'Fleet via GraphQL' });
    expect((await events.next(1_000)).data.whiteboardEvents).toMatchObject({
      kind: 'UPDATED',
      node: { name: 'Fleet via GraphQL' },
    });
    expect(Date.now() - sentAt).toBeLessThan(1_000);
    sentAt = Date.now();
    expect(
      (
        await rest({ url: a.url, keys }, 'PUT', `/api/whiteboard/v1/${board.rowId}/`, {
          json: { name: 'Fleet via REST' },
        })
      ).status,
    ).toBe(200);
    expect((await events.next(1_000)).data.whiteboardEvents).toMatchObject({
      kind: 'UPDATED',
      node: { name: 'Fleet via REST' },
    });
    expect(Date.now() - sentAt).toBeLessThan(1_000);
    events.close();
  });

  it('tells nothing of a mutation whose transaction rolls back at commit, after it announced itself', async () => {
    // A deferred constraint fails at COMMIT, after the mutation's NOTIFY: the whole transaction goes.
    await database.prisma.$executeRawUnsafe(
      `CREATE FUNCTION refuse_at_commit() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'refused at commit'; END $$`,
    );
    await database.prisma.$executeRawUnsafe(`CREATE CONSTRAINT TRIGGER refuse_name AFTER UPDATE ON whiteboard DEFERRABLE INITIALLY DEFERRED
      FOR EACH ROW WHEN (NEW.name = 'Rolled back') EXECUTE FUNCTION refuse_at_commit()`);
    const events = await subscribeSse(b.url, keys.viewer, boardEvents, { id: board.rowId });
    const refused = await a.graphql(rename, { rowId: board.rowId, name: 'Rolled back' });
    expect(refused.errors).toBeDefined();
    expect((await database.prisma.whiteboard.findUniqueOrThrow({ where: { id: board.rowId } })).name).not.toBe(
      'Rolled back',
    );
    await a.graphql(rename, { rowId: board.rowId, name: 'Committed after' });
    // The first event B tells is the committed change.
    expect((await events.next(1_000)).data.whiteboardEvents).toMatchObject({
      kind: 'UPDATED',
      node: { name: 'Committed after' },
    });
    await expect(events.next(300)).rejects.toThrow('no event');
    events.close();
  });

  it('serves through B a file uploaded through A: type, length, entity tag, ranges across chunks; SVG as a download', async () => {
    // Larger than one stored chunk (256 KiB), so a range crosses chunks.
    const png = pngBytes(300_000);
    const path = (await uploadFile(a.url, keys.owner, png, 'image/png', 'big.png')).data.uploadFile.file.file;
    const whole = await fetch(b.url + path);
    expect(whole.status).toBe(200);
    expect(whole.headers.get('content-type')).toBe('image/png');
    expect(whole.headers.get('content-length')).toBe(String(png.length));
    expect(new Uint8Array(await whole.arrayBuffer())).toEqual(png);
    const etag = whole.headers.get('etag')!;
    expect(etag).toMatch(/^(W\/)?"[^"]+"$/);
    expect((await fetch(b.url + path, { headers: { 'if-none-match': etag } })).status).toBe(304);

    const part = await fetch(b.url + path, { headers: { range: 'bytes=262000-262199' } });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 262000-262199/${png.length}`);
    expect(part.headers.get('content-length')).toBe('200');
    expect(new Uint8Array(await part.arrayBuffer())).toEqual(png.subarray(262_000, 262_200));
    const tail = await fetch(b.url + path, { headers: { range: 'bytes=-10' } });
    expect(new Uint8Array(await tail.arrayBuffer())).toEqual(png.subarray(png.length - 10));
    expect((await fetch(b.url + path, { headers: { range: `bytes=${png.length}-` } })).status).toBe(416);

    const svg = (
      await uploadFile(
        a.url,
        keys.owner,
        '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>',
        'image/svg+xml',
        'x.svg',
      )
    ).data.uploadFile.file.file;
    const served = await fetch(b.url + svg);
    expect(served.headers.get('content-disposition')).toMatch(/^attachment/);
    expect(served.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('ends, on B, within a second, the WebSocket stream of a key revoked through A', async () => {
    const created = (
      await a.graphql(
        `mutation { createApiKey(input: { name: "fleet", permission: READ_ONLY }) { secret apiKey { id } } }`,
      )
    ).data!.createApiKey;
    const events = subscribeWs(b.url, created.secret, boardEvents, { id: board.rowId });
    // An event heard tells that the subscription stands.
    await expect
      .poll(
        async () => {
          await a.graphql(rename, { rowId: board.rowId, name: `Before the revocation ${Date.now()}` });
          return (await events.next(500).catch(() => undefined))?.data?.whiteboardEvents?.kind;
        },
        { timeout: 5_000 },
      )
      .toBe('UPDATED');
    const revokedAt = Date.now();
    await a.graphql(`mutation($id: ID!) { revokeApiKey(input: { id: $id }) { apiKey { revokedAt } } }`, {
      id: created.apiKey.id,
    });
    // Past any rename that was still on its way.
    let last: Awaited<ReturnType<typeof events.next>>;
    do last = await events.next(1_000);
    while (last.data);
    expect(last.errors?.[0]).toMatchObject({ extensions: { code: 'UNAUTHENTICATED' } });
    await events.ended;
    expect(Date.now() - revokedAt).toBeLessThan(1_000);
  });
  it('ends, on B, within a second, the stream of a bearer token whose identity the command line revokes', async () => {
    const events = subscribeWs(b.url, { bearer: await provider.signIn('viewer') }, boardEvents, { id: board.rowId });
    await expect
      .poll(
        async () => {
          await a.graphql(rename, { rowId: board.rowId, name: `Before the identity's revocation ${Date.now()}` });
          return (await events.next(500).catch(() => undefined))?.data?.whiteboardEvents?.kind;
        },
        { timeout: 5_000 },
      )
      .toBe('UPDATED');
    const revoked = await runScript('identity', ['revoke', '--issuer', provider.issuer, '--subject', 'viewer'], env);
    expect(revoked.stdout.trim()).toBe('revoked 1 identity');
    // The command line's process has ended, so its transaction committed before now.
    const committed = Date.now();
    let last: Awaited<ReturnType<typeof events.next>>;
    do last = await events.next(5_000);
    while (last.data);
    expect(last.errors?.[0]).toMatchObject({ extensions: { code: 'UNAUTHENTICATED', reason: 'IDENTITY_REVOKED' } });
    await events.ended;
    expect(Date.now() - committed).toBeLessThan(1_000);
  });
});
