import { db, prisma } from '../db/index.js';
import type { DatabaseEngine } from '../db/engine.js';
import type { Listening } from '../db/listen.js';
import type { ApiKeyPermission, Role } from '../generated/prisma/enums.js';
import { noteCaller, outsideRequests } from '../observability/requests.js';
import { hashesMatch, hashSecret } from './api-keys.js';

/** Who is calling: resolved from the API key once per request. */
export interface Principal {
  userId: number;
  keyId: number;
  /** When the key stops working; null for never. */
  expiresAt: Date | null;
  permission: ApiKeyPermission;
  /** A platform administrator sees every organization. */
  isAdmin: boolean;
  activeOrganizationId: number | null;
  /** The caller's role in each organization it belongs to. */
  roles: ReadonlyMap<number, Role>;
  /** The first characters of the key's secret (never the secret): logs name the key by it. */
  keyPrefix: string;
  /** The organizations the caller belongs to, for the request log. */
  organizationIds: readonly number[];
}

/** How long a resolved key is trusted without asking the database again, unless a change is announced first. @default 10 s */
const cacheMs = 10_000;
const cache = new Map<string, { principal: Principal; until: number }>();

/** Forgets a key at once (on revocation), so its next request is refused. */
export function forgetKey(secretHash: string): void {
  cache.delete(secretHash);
}

/** Forgets every key of a user (when the user's memberships or active organization change). */
export function forgetUser(userId: number): void {
  for (const [hash, entry] of cache) if (entry.principal.userId === userId) cache.delete(hash);
}

/** The subscription to the database's principal changes: `first` settles once its first attempt has. */
interface Subscription {
  engine: DatabaseEngine;
  listening: Listening | undefined;
  first: Promise<void>;
}

let watching: Subscription | undefined;

const RESUBSCRIBE_MS = 1_000;

const changeListeners = new Set<(userId: number | undefined) => void>();

/** Calls `listener` after a user's keys were forgotten (undefined: every user's), until the returned function is called. */
export function onPrincipalChange(listener: (userId: number | undefined) => void): () => void {
  changeListeners.add(listener);
  return () => changeListeners.delete(listener);
}

function principalChanged(userId: number | undefined): void {
  if (userId === undefined) cache.clear();
  else forgetUser(userId);
  for (const listener of changeListeners) listener(userId);
}

function subscribe(subscription: Subscription): Promise<void> {
  return subscription.engine
    .listen('principal_changed', (userId) => principalChanged(userId === undefined ? undefined : Number(userId)))
    .then(
      (listening) => void (subscription.listening = listening),
      // The database is away: keys are looked up at every request, uncached, until the subscription stands.
      () => void setTimeout(() => watching === subscription && subscribe(subscription), RESUBSCRIBE_MS).unref(),
    );
}

/**
 * Whether resolved keys may be cached: only while the subscription stands, once per database, to the
 * notifications its triggers send when a key, a user or a membership changes anywhere (another
 * process, the CLI, plain SQL; see the migration principal_change_notifications), so the cache never
 * outlives a revocation by more than the notification's trip. A lost subscription forgets every key.
 * The first request waits for the first attempt (bounded by the connection's timeout), no later one.
 */
async function cacheable(): Promise<boolean> {
  const { engine } = db();
  if (watching?.engine !== engine) {
    cache.clear();
    const subscription: Subscription = { engine, listening: undefined, first: Promise.resolve() };
    // Its connection outlives the request that opened it.
    subscription.first = outsideRequests(() => subscribe(subscription));
    watching = subscription;
  }
  await watching.first;
  return watching.listening?.standing === true;
}

/** The principal of a presented secret, or null for a missing, unknown, revoked or expired key or an inactive user. */
export async function resolvePrincipal(secret: string | null | undefined): Promise<Principal | null> {
  if (!secret) return null;
  const caching = await cacheable();
  const hash = hashSecret(secret);
  const cached = caching ? cache.get(hash) : undefined;
  if (cached && cached.until > Date.now()) {
    noteCaller(cached.principal);
    return cached.principal;
  }

  const key = await prisma().apiKey.findUnique({
    where: { secretHash: hash },
    include: { user: { include: { memberships: { select: { organizationId: true, role: true } } } } },
  });
  const now = new Date();
  if (
    !key ||
    !hashesMatch(key.secretHash, hash) ||
    key.revokedAt ||
    (key.expiresAt && key.expiresAt <= now) ||
    !key.user.isActive
  ) {
    cache.delete(hash);
    return null;
  }
  const principal: Principal = {
    userId: key.userId,
    keyId: key.id,
    expiresAt: key.expiresAt,
    permission: key.permission,
    isAdmin: key.user.isAdmin,
    activeOrganizationId: key.user.activeOrganizationId,
    roles: new Map(key.user.memberships.map((membership) => [membership.organizationId, membership.role])),
    keyPrefix: key.prefix,
    organizationIds: key.user.memberships.map((membership) => membership.organizationId),
  };
  noteCaller(principal);
  if (caching) {
    // Never past the expiry, so a check at that instant asks the database.
    cache.set(hash, { principal, until: Math.min(Date.now() + cacheMs, key.expiresAt?.getTime() ?? Infinity) });
    // Recorded once per cache period, off the request's path.
    void prisma()
      .apiKey.update({ where: { id: key.id }, data: { lastUsedAt: now } })
      .catch(() => {});
  }
  return principal;
}
