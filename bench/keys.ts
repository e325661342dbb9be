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
}

/** Issues `count` READ_WRITE keys in the bench database through the gateway's own `createApiKey`. */
export async function issueKeys(databaseUrl: string, count: number): Promise<KeyRing> {
  const database = await openDatabase({ databaseUrl, poolSize: 2 });
  try {
    const secrets: string[] = [];
    for (let i = 0; i < count; i++) {
      const key = await createApiKey(database.prisma, {
        userId: ownerOf(i + 1),
        name: `bench ${i + 1}`,
        permission: 'READ_WRITE',
      });
      secrets.push(key.secret);
    }
    return {
      count,
      headers: (i) => ({ 'x-api-key': secrets[i % count] }),
      note: `every request carries X-API-KEY (${count} READ_WRITE keys, one per organization owner, from createApiKey)`,
    };
  } finally {
    await database.close();
  }
}
