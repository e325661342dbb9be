import pg from 'pg';
import { createApiKey } from '../src/auth/api-keys.js';
import { openDatabase } from '../src/db/index.js';
import { AUDIENCE, type TestProvider } from '../test/helpers/oidc-provider.js';
import { ownerOf } from './dataset.js';

/**
 * The only place that knows how requests authenticate: every case takes its headers from here.
 * Key i belongs to the owner of organization i + 1, who belongs to no other organization, so a
 * key sees exactly one organization's rows and may archive its boards.
 */
export interface KeyRing {
  count: number;
  /** Headers for a request made with key `i` (taken modulo the number of keys), or with the bearer token of key 0's owner. */
  headers(i: number | 'token'): Record<string, string>;
  /** What the report should say about authentication. */
  note: string;
  /** Tells the gateway, through its own channel (`principal_changed`), to forget every key's principal. */
  forget(): Promise<void>;
}

/** The gateway's settings for the bench's OpenID provider (a real one, started by the bench on loopback). */
export const tokenIssuer = (provider: TestProvider) => ({ OIDC_ISSUER: provider.issuer, OIDC_AUDIENCE: AUDIENCE });

/**
 * Issues `count` READ_WRITE keys in the bench database through the gateway's own `createApiKey`, and
 * a bearer token of key 0's owner through the provider's authorization code flow (living the whole run).
 */
export async function issueKeys(databaseUrl: string, count: number, provider?: TestProvider): Promise<KeyRing> {
  const database = await openDatabase({ databaseUrl, poolSize: 2 });
  try {
    const token = await provider?.signIn('owner', 'whiteboard.write');
    const bearer = (): Record<string, string> => {
      if (!token)
        throw new Error('no bearer token: this run started no OpenID provider (case t runs in npm run bench)');
      return { authorization: `Bearer ${token}` };
    };
    const secrets: string[] = [];
    const owners = Array.from({ length: count }, (_, i) => ownerOf(i + 1));
    for (const [i, owner] of owners.entries()) {
      const key = await createApiKey(database.prisma, {
        userId: owner,
        name: `bench ${i + 1}`,
        permission: 'READ_WRITE',
      });
      secrets.push(key.secret);
    }
    return {
      count,
      headers: (i) => (i === 'token' ? bearer() : { 'x-api-key': secrets[i % count] }),
      note: `every request carries X-API-KEY (${count} READ_WRITE keys, one per organization owner, from createApiKey), but case t's: Authorization: Bearer, an ES256 token of key 0's owner from oidc-provider (authorization code + PKCE, scope whiteboard.write)`,
      forget: async () => {
        const client = new pg.Client({ connectionString: databaseUrl });
        await client.connect();
        try {
          for (const owner of owners) await client.query(`SELECT pg_notify('principal_changed', $1)`, [String(owner)]);
        } finally {
          await client.end();
        }
      },
    };
  } finally {
    await database.close();
  }
}
