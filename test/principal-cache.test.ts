import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, hashSecret } from '../src/auth/api-keys.js';
import {
  cachedOrRead,
  forgetKey,
  principalGeneration,
  rememberPrincipal,
  resolvePrincipal,
} from '../src/auth/principal.js';
import { demo } from '../src/db/seed/index.js';
import { until } from './helpers/live.js';
import { startTestServer, type TestServer } from './helpers/server.js';

// The principal cache serves a key for up to 10 s, and forgets it when the database announces a change
// (principal_changed). A request that read a key just before a revocation, and caches it just after
// the revocation's announcement was heard, must not put the revoked key back for 10 s.

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server?.close());

async function newKey() {
  const prisma = server.database.prisma;
  const user = await prisma.user.findUniqueOrThrow({ where: { email: demo.users.viewer.email } });
  return createApiKey(prisma, { userId: user.id, name: 'cached', permission: 'READ_ONLY' });
}

describe('the principal cache', () => {
  it('serves a key it read with no change since from the cache, without a statement', async () => {
    const key = await newKey();
    expect(await resolvePrincipal(key.secret)).toMatchObject({ keyPrefix: key.prefix });
    const again = await server.countStatements(() => resolvePrincipal(key.secret));
    expect(again.result).toMatchObject({ keyPrefix: key.prefix });
    expect(again.statements.filter((sql) => /SELECT/.test(sql))).toEqual([]);
  });

  it('does not serve a key read before its revocation and cached after the revocation was heard', async () => {
    const key = await newKey();
    const readAt = principalGeneration();
    const read = await resolvePrincipal(key.secret);
    expect(read).not.toBeNull();
    // Revoked elsewhere (another instance, the command line): this process hears of it by the database's notification.
    await server.database.prisma.$executeRaw`UPDATE api_key SET revoked_at = now() WHERE id = ${key.id}`;
    await until(() => principalGeneration() !== readAt);
    // The request that read it before the revocation caches it only now.
    rememberPrincipal(hashSecret(key.secret), read!, true, { readAt });
    expect(await resolvePrincipal(key.secret)).toBeNull();
    const answer = await server.graphql('{ me { rowId } }', {}, key.secret);
    expect(answer.errors?.[0].extensions?.code).toBe('UNAUTHENTICATED');
  });

  it('shares a read under way, but not one begun before a change was heard', async () => {
    const read = await resolvePrincipal(server.keys.viewer);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let reads = 0;
    const slowRead = async () => {
      reads++;
      await gate;
      return read!;
    };
    const first = cachedOrRead('shared read', true, slowRead);
    const joined = cachedOrRead('shared read', true, slowRead);
    expect(reads).toBe(1);
    forgetKey('shared read');
    const after = cachedOrRead('shared read', true, slowRead);
    expect(reads).toBe(2);
    release();
    expect(await Promise.all([first, joined, after])).toEqual([read, read, read]);
    // Not caching (no announcements heard): every caller reads for itself.
    await Promise.all([cachedOrRead('unshared', false, slowRead), cachedOrRead('unshared', false, slowRead)]);
    expect(reads).toBe(4);
  });
});
