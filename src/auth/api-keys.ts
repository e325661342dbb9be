import { hash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Prisma } from '../db/index.js';
import type { ApiKeyPermission } from '../generated/prisma/enums.js';

/** Secrets look like `wbg_` + 43 base64url characters: 256 random bits. */
const secretPrefix = 'wbg_';
/** Characters of the secret kept in clear so a user can tell keys apart. */
const shownLength = secretPrefix.length + 8;

export function generateSecret(): string {
  return secretPrefix + randomBytes(32).toString('base64url');
}

// A fast hash is enough here: the secrets are random and long, so there is nothing to guess from the hash.
export function hashSecret(secret: string): string {
  return hash('sha256', secret, 'hex');
}

/** Compares a stored hash with the hash of a presented secret in constant time. */
export function hashesMatch(stored: string, presented: string): boolean {
  const a = Buffer.from(stored, 'hex');
  const b = Buffer.from(presented, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}

export interface NewApiKey {
  userId: number;
  name: string;
  permission: ApiKeyPermission;
  expiresAt?: Date | null;
  /** Use this secret instead of a random one (the demo key of DEMO_API_KEY). */
  secret?: string;
}

type Db = Pick<Prisma, 'apiKey'>;

/** Stores a new key and returns it with its secret, which is never retrievable again. */
export async function createApiKey(prisma: Db, key: NewApiKey) {
  const secret = key.secret ?? generateSecret();
  const row = await prisma.apiKey.create({
    data: {
      userId: key.userId,
      name: key.name,
      permission: key.permission,
      expiresAt: key.expiresAt ?? null,
      prefix: secret.slice(0, shownLength),
      secretHash: hashSecret(secret),
    },
  });
  return { ...row, secret };
}
