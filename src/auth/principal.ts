import { db, prisma } from '../db/index.js';
import type { DatabaseEngine } from '../db/engine.js';
import type { Listening } from '../db/listen.js';
import type { ApiKeyPermission, CredentialKind, Role } from '../generated/prisma/enums.js';
import { noteCaller, outsideRequests } from '../observability/requests.js';
import { hashesMatch, hashSecret } from './api-keys.js';

/** Who is calling: resolved from the API key or bearer token once per request. */
export interface Principal {
  userId: number;
  /** What the caller presented: an API key or an OpenID Connect issuer's bearer token. */
  credential: CredentialKind;
  /**
   * Whose rate-limit bucket and subscriptions a request counts against: `key:<id>` for a key,
   * `user:<id>` for every token of a user (a renewed token is the same caller).
   */
  holder: string;
  /** When the key or token stops working; null for never. */
  expiresAt: Date | null;
  /** The key's permission, or the most a token's scopes allow. */
  permission: ApiKeyPermission;
  /** A platform administrator sees every organization. */
  isAdmin: boolean;
  activeOrganizationId: number | null;
  /** The caller's role in each organization it belongs to. */
  roles: ReadonlyMap<number, Role>;
  /** The first characters of the key's secret (never the secret): logs name the key by it. Tokens have none. */
  keyPrefix?: string;
  /** The organizations the caller belongs to, for the request log. */
  organizationIds: readonly number[];
}

/** How long a resolved key is trusted without asking the database again, unless a change is announced first. @default 10 s */
const cacheMs = 10_000;
const cache = new Map<string, { principal: Principal; until: number }>();
/**
 * Counts the changes of keys, users, identities and memberships this process has heard of. A
 * principal is cached only if none came between its read and its caching: one read before a
 * revocation and cached after the revocation's notification would be served for `cacheMs`.
 */
let generation = 0;

/** The count of changes heard so far: taken before a principal is read, and given back to `rememberPrincipal`. */
export const principalGeneration = () => generation;

/** Forgets a key at once (on revocation), so its next request is refused. */
export function forgetKey(secretHash: string): void {
  generation++;
  cache.delete(secretHash);
}

/** The principal cached under `id` (a key's hash, a token's), noted as the request's caller; none while `caching` is off. */
function cachedPrincipal(id: string, caching: boolean): Principal | undefined {
  const cached = caching ? cache.get(id) : undefined;
  if (!cached || cached.until <= Date.now()) return undefined;
  noteCaller(cached.principal);
  return cached.principal;
}

/** Reads of principals under way, by id, with the generation each began at. */
const reading = new Map<string, { readAt: number; read: Promise<unknown> }>();

/**
 * The principal cached under `id`, or what `read` finds (it caches it with `rememberPrincipal`).
 * While caching, a caller that comes while a read of `id` is under way shares it, unless a change
 * was heard since that read began: a reconnect storm of one key's clients asks the database once.
 */
export async function cachedOrRead<T>(
  id: string,
  caching: boolean,
  read: (readAt: number) => Promise<Principal | T>,
): Promise<Principal | T> {
  const cached = cachedPrincipal(id, caching);
  if (cached) return cached;
  const readAt = generation;
  const under = caching ? reading.get(id) : undefined;
  if (under?.readAt === readAt) {
    const shared = (await under.read) as Principal | T;
    if (isPrincipal(shared)) noteCaller(shared);
    return shared;
  }
  const started = read(readAt);
  if (!caching) return started;
  reading.set(id, { readAt, read: started });
  const done = () => reading.get(id)?.read === started && reading.delete(id);
  started.then(done, done);
  return started;
}

const isPrincipal = (value: unknown): value is Principal =>
  typeof value === 'object' && value !== null && 'holder' in value;

/** Writes between two sweeps of the cache: a renewed token is a new entry, and the old one is never asked for again. */
const SWEEP_EVERY = 256;
let writes = 0;

/**
 * Notes a principal as the request's caller and, while `caching`, caches it for `cacheMs`, never past
 * the end of its acceptance (a key's expiry; a token's `exp` plus the clock leeway, so a token in
 * its leeway is not verified and looked up again at every request); not at all when a change was
 * heard since `readAt` (principalGeneration before the read), which the read may not have seen.
 */
export function rememberPrincipal(
  id: string,
  principal: Principal,
  caching: boolean,
  { readAt, acceptedUntil = principal.expiresAt }: { readAt: number; acceptedUntil?: Date | null },
): void {
  noteCaller(principal);
  if (!caching || readAt !== generation) return;
  const now = Date.now();
  if (++writes % SWEEP_EVERY === 0) for (const [cached, entry] of cache) if (entry.until <= now) cache.delete(cached);
  cache.set(id, { principal, until: Math.min(now + cacheMs, acceptedUntil?.getTime() ?? Infinity) });
}

/** Principals in the cache now, stale ones included until the next sweep; for tests. */
export const cachedPrincipals = () => cache.size;

/** Forgets every key and token of a user (when the user's memberships or active organization change). */
export function forgetUser(userId: number): void {
  generation++;
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
  generation++;
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
 * Whether resolved keys and tokens may be cached: only while the subscription stands, once per database, to the
 * notifications its triggers send when a key, a user, an identity or a membership changes anywhere (another
 * process, the CLI, plain SQL; see the migration principal_change_notifications), so the cache never
 * outlives a revocation by more than the notification's trip. A lost subscription forgets every key.
 * The first request waits for the first attempt (bounded by the connection's timeout), no later one.
 */
export async function cacheable(): Promise<boolean> {
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

/** What a principal takes from its user: admin, active organization, roles and organizations. */
export function userPart(user: {
  id: number;
  isAdmin: boolean;
  activeOrganizationId: number | null;
  memberships: { organizationId: number; role: Role }[];
}): Pick<Principal, 'userId' | 'isAdmin' | 'activeOrganizationId' | 'roles' | 'organizationIds'> {
  return {
    userId: user.id,
    isAdmin: user.isAdmin,
    activeOrganizationId: user.activeOrganizationId,
    roles: new Map(user.memberships.map((membership) => [membership.organizationId, membership.role])),
    organizationIds: user.memberships.map((membership) => membership.organizationId),
  };
}

/** The principal of a presented secret, or null for a missing, unknown, revoked or expired key or an inactive user. */
export async function resolvePrincipal(secret: string | null | undefined): Promise<Principal | null> {
  if (!secret) return null;
  const caching = await cacheable();
  const hash = hashSecret(secret);
  return cachedOrRead(hash, caching, (readAt) => readKey(hash, caching, readAt));
}

/** Reads a key with its user and memberships: the principal `resolvePrincipal` caches. */
async function readKey(hash: string, caching: boolean, readAt: number): Promise<Principal | null> {
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
    ...userPart(key.user),
    credential: 'API_KEY',
    holder: `key:${key.id}`,
    expiresAt: key.expiresAt,
    permission: key.permission,
    keyPrefix: key.prefix,
  };
  rememberPrincipal(hash, principal, caching, { readAt });
  // Recorded once per cache period, off the request's path.
  if (caching)
    void prisma()
      .apiKey.update({ where: { id: key.id }, data: { lastUsedAt: now } })
      .catch(() => {});
  return principal;
}
