/** Scopes a bearer token carries for the gateway, and the permission each gives, as a key's permission does. */
export const tokenScopes = {
  'whiteboard.read': 'READ_ONLY',
  'whiteboard.write': 'READ_WRITE',
  'whiteboard.admin': 'ADMIN',
} as const;

/** The largest bearer token looked at; a longer one is refused before any work. */
export const MAX_TOKEN_BYTES = 8192;

/**
 * Why a credential was refused: the reason code a client acts on (GraphQL `extensions.reason`,
 * beside `code: UNAUTHENTICATED`), with what to do about it. docs/openid-connect.md prints this table.
 */
export const refusalReasons = {
  INVALID_API_KEY: 'the API key (X-API-KEY) is missing, unknown, revoked or expired, or its user is inactive',
  TWO_CREDENTIALS: 'send either X-API-KEY or Authorization: Bearer, not both',
  BEARER_NOT_ACCEPTED: 'this gateway accepts no bearer tokens (OIDC_ISSUER is not set): send an API key in X-API-KEY',
  TOKEN_TOO_LARGE: `the bearer token is longer than ${MAX_TOKEN_BYTES} bytes`,
  MALFORMED_TOKEN: 'the bearer token is not a signed JSON Web Token (compact JWS) with a JSON claims set',
  UNSUPPORTED_ALGORITHM:
    'the token is not signed with an asymmetric algorithm its key allows (RS*, PS*, ES*, EdDSA; never none or HS*)',
  UNKNOWN_ISSUER: "the token's issuer (iss) is not one the gateway accepts (OIDC_ISSUER)",
  WRONG_AUDIENCE: 'the token is not for this gateway: its audience (aud) must hold OIDC_AUDIENCE',
  MISSING_CLAIM: 'the token lacks a claim the gateway needs (sub, exp, iss, aud)',
  NOT_AN_ACCESS_TOKEN:
    'the token is not an access token: its typ header is not one of OIDC_ACCESS_TOKEN_TYPES (at+jwt), or its authorized party (azp) is its own audience, as in an ID token: send the access token',
  TOKEN_EXPIRED: 'the token has expired: renew it, or sign in again',
  TOKEN_NOT_YET_VALID: 'the token is not valid yet (nbf): check the clocks of the issuer and the client',
  UNKNOWN_KEY:
    "the issuer's key set holds no key of the token's key id (kid); a key published lately is taken within 45 s",
  INVALID_SIGNATURE: "the token's signature does not verify with the issuer's key",
  ISSUER_UNAVAILABLE: "the issuer's keys cannot be fetched now: retry shortly",
  INSUFFICIENT_SCOPE: `the token carries none of the gateway's scopes (${Object.keys(tokenScopes).join(', ')})`,
  IDENTITY_REVOKED: "the token's identity was revoked for this gateway",
  USER_INACTIVE: "the token's user is deactivated",
  UNKNOWN_USER:
    'no user has the verified e-mail of the token, and the gateway creates none (OIDC_CREATE_USERS): ask for an invite',
  UNLINKED_IDENTITY:
    'the token names no verified e-mail and its identity is linked to no user: an operator links it (npm run identity -- link)',
  EXPIRED:
    'the API key or bearer token of an open subscription expired, which ended it: subscribe again with a renewed one',
} as const;

export type RefusalReason = keyof typeof refusalReasons;

/** A credential refused: why, whether it was a bearer token (answered with WWW-Authenticate on both doors), and the status. */
export interface Refusal {
  reason: RefusalReason;
  message: string;
  bearer: boolean;
  /** 403 for a valid token without the gateway's scopes (RFC 6750 3.1: it is who it says, and may not), else 401. */
  status: 401 | 403;
}

export const isRefusal = (value: object): value is Refusal => 'reason' in value;

export function refusal(reason: RefusalReason): Refusal {
  // A key's refusal keeps the words it always had.
  if (reason === 'INVALID_API_KEY')
    return {
      reason,
      message: 'Not authenticated: send a valid API key in the X-API-KEY header',
      bearer: false,
      status: 401,
    };
  if (reason === 'INSUFFICIENT_SCOPE')
    return { reason, message: `Not permitted (${reason}): ${refusalReasons[reason]}`, bearer: true, status: 403 };
  return { reason, message: `Not authenticated (${reason}): ${refusalReasons[reason]}`, bearer: true, status: 401 };
}

/** RFC 6750's challenge for a refused bearer token, naming the reason code in its description (and the scopes it lacks). */
export function bearerChallenge(refused: Refusal): string {
  if (refused.reason === 'INSUFFICIENT_SCOPE')
    return `Bearer error="insufficient_scope", error_description="${refused.reason}", scope="${Object.keys(tokenScopes).join(' ')}"`;
  return `Bearer error="invalid_token", error_description="${refused.reason}"`;
}

/** What a 401 without a refused token's own challenge names (RFC 9110 11.6.1): the API key, and bearer tokens when the gateway takes them. */
export function challenges(bearerAccepted: boolean): string {
  const realm = 'realm="whiteboard-gateway"';
  return bearerAccepted ? `ApiKey ${realm}, Bearer ${realm}` : `ApiKey ${realm}`;
}
