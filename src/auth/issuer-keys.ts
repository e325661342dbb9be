import { createLocalJWKSet, type JWK, type JWTVerifyGetKey } from 'jose';
import { issuerUrl } from '../config.js';
import { logger } from '../observability/logger.js';

/** Keys older than this are fetched again, in the background: a request never waits for it, and a failure keeps them. @default 10 min */
const REFRESH_MS = 10 * 60_000;
/**
 * Least time between two fetches for a key id the set does not hold: a token names any key id it
 * likes, so it must not make the gateway fetch at its pace. A key the issuer publishes is taken within
 * this and one timeout (the bound is 45 s). @default 30 s
 */
export const REFETCH_COOLDOWN_MS = 30_000;
/** Largest discovery document or key set read; a real one is a few kilobytes. */
const MAX_DOCUMENT_BYTES = 256 * 1024;
/** The key types of asymmetric signatures: a symmetric (`oct`) key in a published set is never used, so no HMAC verifies with public material. */
const ASYMMETRIC = new Set(['RSA', 'EC', 'OKP']);

/** The issuer's keys could not be had: not fetched yet and its endpoints do not answer (or answer garbage). */
export class IssuerUnavailable extends Error {}
/** The issuer's current set holds no key of the token's key id. */
export class UnknownKey extends Error {}

async function fetchJson(url: string, timeoutMs: number): Promise<Record<string, unknown>> {
  // The timeout covers the body too; a redirect could lead anywhere, so none is followed.
  const response = await fetch(url, {
    signal: AbortSignal.timeout(timeoutMs),
    redirect: 'error',
    headers: { accept: 'application/json' },
  });
  if (!response.ok) throw new Error(`${url} answered ${response.status}`);
  if (Number(response.headers.get('content-length') ?? 0) > MAX_DOCUMENT_BYTES) throw new Error(`${url} is too large`);
  const text = await response.text();
  if (text.length > MAX_DOCUMENT_BYTES) throw new Error(`${url} is too large`);
  const value: unknown = JSON.parse(text);
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new Error(`${url} is not a JSON object`);
  return value as Record<string, unknown>;
}

interface KeySet {
  get: JWTVerifyGetKey;
  kids: ReadonlySet<string | undefined>;
  fetchedAt: number;
}

/**
 * One issuer's signing keys: its discovery document (`/.well-known/openid-configuration`, whose
 * `issuer` must be the configured URL exactly) names its key set, fetched at the first token,
 * again in the background once it is REFRESH_MS old, and at once for a key id it does not hold, at
 * most every REFETCH_COOLDOWN_MS. Every fetch is bounded by `timeoutMs`; while the issuer is away
 * the keys last fetched stay in use, so tokens it signed before keep working.
 */
export class IssuerKeys {
  private keys: KeySet | undefined;
  private jwksUri: string | undefined;
  private lastAttempt = Number.NEGATIVE_INFINITY;
  private loading: Promise<void> | undefined;
  private away = false;

  constructor(
    readonly issuer: string,
    private readonly timeoutMs: number,
  ) {}

  /** The key for a token's header (jose's key resolver). */
  readonly resolve: JWTVerifyGetKey = async (header, token) => {
    const held = this.keys?.kids.has(header.kid);
    if (held && Date.now() - this.keys!.fetchedAt > REFRESH_MS) void this.load(REFRESH_MS).catch(() => {});
    if (!held) await this.load(REFETCH_COOLDOWN_MS).catch(() => {});
    if (!this.keys) throw new IssuerUnavailable(`the keys of ${this.issuer} cannot be fetched`);
    if (!this.keys.kids.has(header.kid))
      throw new UnknownKey(`${this.issuer} publishes no key ${header.kid ?? '(no kid)'}`);
    return this.keys.get(header, token);
  };

  /** Fetches the key set unless a fetch started less than `interval` ago; one fetch at a time. */
  private load(interval: number): Promise<void> {
    if (this.loading) return this.loading;
    if (Date.now() - this.lastAttempt < interval) return Promise.resolve();
    this.lastAttempt = Date.now();
    this.loading = this.fetchKeys()
      .then(
        (keys) => {
          this.keys = keys;
          if (this.away) logger.warn({ issuer: this.issuer }, 'the OpenID Connect issuer answers again');
          this.away = false;
        },
        (error: unknown) => {
          // Perhaps the document moved the set: found again at the next attempt.
          this.jwksUri = undefined;
          if (!this.away)
            logger.warn(
              { issuer: this.issuer, reason: error instanceof Error ? error.message : String(error) },
              this.keys
                ? 'the OpenID Connect issuer cannot be reached; the keys fetched before stay in use'
                : 'the OpenID Connect issuer cannot be reached; its tokens are refused until it answers',
            );
          this.away = true;
          throw error;
        },
      )
      .finally(() => {
        this.loading = undefined;
      });
    return this.loading;
  }

  private async fetchKeys(): Promise<KeySet> {
    this.jwksUri ??= await this.discover();
    const set = await fetchJson(this.jwksUri, this.timeoutMs);
    if (!Array.isArray(set.keys)) throw new Error(`${this.jwksUri} holds no "keys" array`);
    const keys = (set.keys as JWK[]).filter(
      (key) =>
        typeof key === 'object' && key !== null && ASYMMETRIC.has(key.kty as string) && (key.use ?? 'sig') === 'sig',
    );
    return {
      get: createLocalJWKSet({ keys }),
      kids: new Set(keys.map((key) => key.kid)),
      fetchedAt: Date.now(),
    };
  }

  private async discover(): Promise<string> {
    const url = `${this.issuer.replace(/\/$/, '')}/.well-known/openid-configuration`;
    const document = await fetchJson(url, this.timeoutMs);
    if (document.issuer !== this.issuer)
      throw new Error(`${url} names the issuer ${JSON.stringify(document.issuer)}, not ${this.issuer}`);
    if (typeof document.jwks_uri !== 'string') throw new Error(`${url} names no jwks_uri`);
    return issuerUrl('jwks_uri', document.jwks_uri);
  }
}
