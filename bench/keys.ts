import pg from 'pg';
import { createApiKey } from '../src/auth/api-keys.js';
import { openDatabase } from '../src/db/index.js';
import { ownerOf } from './dataset.js';

/**
 * The only place that knows how requests authenticate: every case takes its headers from here.
 * Key i belongs to the owner of organization i + 1, who belongs to no other organization, so a
 * key sees exactly one organization's rows and may archive its boards.
 */
export interface KeyRing {
  count: number;
  /** Headers for a request made with key `i` (taken modulo the number of keys). */
  headers(i: number): Record<string, string>;
  /** What the report should say about authentication. */
  note: string;
  /** Tells the gateway, through its own channel (`principal_changed`), to forget every key's principal. */
  forget(): Promise<void>;
}

/** Issues `count` READ_WRITE keys in the bench database through the gateway's own `createApiKey`. */
export async function issueKeys(databaseUrl: string, count: number): Promise<KeyRing> {
  const database = await openDatabase({ databaseUrl, poolSize: 2 });
  try {
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
      headers: (i) => ({ 'x-api-key': secrets[i % count] }),
      note: `every request carries X-API-KEY (${count} READ_WRITE keys, one per organization owner, from createApiKey)`,
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
