import { decodeJwt, decodeProtectedHeader, errors, jwtVerify, type JWTHeaderParameters, type JWTPayload } from 'jose';
import type { OidcConfig } from '../config.js';
import type { ApiKeyPermission } from '../generated/prisma/enums.js';
import { logError } from '../observability/logger.js';
import { IssuerKeys, IssuerUnavailable, UnknownKey } from './issuer-keys.js';
import { MAX_TOKEN_BYTES, refusal, tokenScopes, type Refusal, type RefusalReason } from './refusals.js';

/** Asymmetric signatures only: `none` and HMAC (whose key would be the issuer's public key) are never accepted. */
const ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
];
/** Clock skew forgiven on exp and nbf, in seconds. */
const CLOCK_LEEWAY_S = 30;
const rank: Record<ApiKeyPermission, number> = { READ_ONLY: 0, READ_WRITE: 1, ADMIN: 2 };

/** What a verified token says of its caller. */
export interface VerifiedToken {
  issuer: string;
  subject: string;
  /** The most the token's scopes allow. */
  permission: ApiKeyPermission;
  expiresAt: Date;
  /** When it stops being accepted: `exp` plus the clock leeway. */
  acceptedUntil: Date;
  /** The e-mail the issuer vouches for (`email` with `email_verified: true`, or Entra ID's `xms_edov: true`), else undefined. */
  verifiedEmail: string | undefined;
  givenName: string | undefined;
  familyName: string | undefined;
}

const text = (value: unknown) => (typeof value === 'string' && value.trim() ? value.trim() : undefined);

/** The token's scopes: `scope` (space-separated, RFC 8693/9068), `scp` (Entra ID, Okta), else Entra ID's app-only `roles`. */
function scopesOf(claims: JWTPayload): string[] {
  const listed = claims.scope ?? claims.scp ?? claims.roles;
  if (typeof listed === 'string') return listed.split(' ');
  return Array.isArray(listed) ? listed.filter((scope): scope is string => typeof scope === 'string') : [];
}

function permissionOf(claims: JWTPayload): ApiKeyPermission | undefined {
  let best: ApiKeyPermission | undefined;
  for (const scope of scopesOf(claims)) {
    const permission = tokenScopes[scope as keyof typeof tokenScopes];
    if (permission && (!best || rank[permission] > rank[best])) best = permission;
  }
  return best;
}

const claimReasons: Record<string, RefusalReason> = {
  aud: 'WRONG_AUDIENCE',
  iss: 'UNKNOWN_ISSUER',
  nbf: 'TOKEN_NOT_YET_VALID',
};

/** The reason code of a failed verification; anything unforeseen is logged and refused as malformed, never a 500. */
function reasonOf(error: unknown): RefusalReason {
  if (error instanceof IssuerUnavailable) return 'ISSUER_UNAVAILABLE';
  if (error instanceof UnknownKey || error instanceof errors.JWKSNoMatchingKey) return 'UNKNOWN_KEY';
  if (error instanceof errors.JWTExpired) return 'TOKEN_EXPIRED';
  if (error instanceof errors.JWTClaimValidationFailed)
    return error.reason === 'missing' ? 'MISSING_CLAIM' : (claimReasons[error.claim] ?? 'MALFORMED_TOKEN');
  if (error instanceof errors.JWSSignatureVerificationFailed) return 'INVALID_SIGNATURE';
  if (error instanceof errors.JOSEAlgNotAllowed || error instanceof errors.JWKSMultipleMatchingKeys)
    return 'UNSUPPORTED_ALGORITHM';
  if (error instanceof errors.JOSEError || error instanceof TypeError) return 'MALFORMED_TOKEN';
  logError(error, 'a bearer token could not be verified');
  return 'MALFORMED_TOKEN';
}

/**
 * Verifies bearer tokens of the configured OpenID Connect issuers for one audience, with every check
 * switched on: size, an asymmetric algorithm the issuer's key allows, the signature, `iss` and `aud`
 * exactly, `exp` and `nbf` with CLOCK_LEEWAY_S, an access token rather than an ID token, a subject,
 * and at least one gateway scope.
 */
export class TokenVerifier {
  private static count = 0;
  /** Tells this verifier's cached principals from another's (another audience, other issuers). */
  readonly id = ++TokenVerifier.count;
  private readonly issuers: Map<string, IssuerKeys>;

  constructor(readonly config: OidcConfig) {
    this.issuers = new Map(config.issuers.map((issuer) => [issuer, new IssuerKeys(issuer, config.timeoutMs)]));
  }

  async verify(token: string): Promise<VerifiedToken | Refusal> {
    if (token.length > MAX_TOKEN_BYTES) return refusal('TOKEN_TOO_LARGE');
    let issuer: IssuerKeys | undefined;
    try {
      // Read unverified only to choose the issuer and refuse an algorithm before any key is fetched.
      if (!ALGORITHMS.includes(decodeProtectedHeader(token).alg ?? 'none')) return refusal('UNSUPPORTED_ALGORITHM');
      issuer = this.issuers.get(decodeJwt(token).iss ?? '');
    } catch {
      return refusal('MALFORMED_TOKEN');
    }
    if (!issuer) return refusal('UNKNOWN_ISSUER');
    try {
      const { payload, protectedHeader } = await jwtVerify(token, issuer.resolve, {
        issuer: issuer.issuer,
        audience: this.config.audience,
        algorithms: ALGORITHMS,
        clockTolerance: CLOCK_LEEWAY_S,
        requiredClaims: ['exp', 'sub', 'iss', 'aud'],
      });
      if (!this.isAccessToken(protectedHeader, payload)) return refusal('NOT_AN_ACCESS_TOKEN');
      return this.read(issuer.issuer, payload);
    } catch (error) {
      return refusal(reasonOf(error));
    }
  }

  /**
   * Whether a verified token is an access token for an API, not an ID token a client was given about
   * its user: typed as an access token when it names a type (RFC 9068's `at+jwt`, or what
   * OIDC_ACCESS_TOKEN_TYPES allows), and not issued to the party it is addressed to (an ID token's
   * authorized party, `azp`, is the client that is also its audience).
   */
  private isAccessToken(header: JWTHeaderParameters, claims: JWTPayload): boolean {
    const type = header.typ?.toLowerCase().replace(/^application\//, '');
    if (type !== undefined && !this.config.accessTokenTypes.includes(type)) return false;
    const audiences = typeof claims.aud === 'string' ? [claims.aud] : (claims.aud ?? []);
    return typeof claims.azp !== 'string' || !audiences.includes(claims.azp);
  }

  private read(issuer: string, claims: JWTPayload): VerifiedToken | Refusal {
    const permission = permissionOf(claims);
    if (!permission) return refusal('INSUFFICIENT_SCOPE');
    const subject = text(claims.sub);
    if (!subject) return refusal('MISSING_CLAIM');
    const email = text(claims.email);
    return {
      issuer,
      subject,
      permission,
      expiresAt: new Date(claims.exp! * 1000),
      acceptedUntil: new Date((claims.exp! + CLOCK_LEEWAY_S) * 1000),
      // Entra ID sends no email_verified; its optional claim xms_edov says the e-mail's domain owner verified it.
      verifiedEmail:
        email && (claims.email_verified === true || claims.xms_edov === true) ? email.toLowerCase() : undefined,
      givenName: text(claims.given_name) ?? text(claims.name),
      familyName: text(claims.family_name),
    };
  }
}
