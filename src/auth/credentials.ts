import { hash } from 'node:crypto';
import { prisma } from '../db/index.js';
import { countRefusal } from '../observability/metrics.js';
import { userOfToken } from './identities.js';
import { cacheable, cachedOrRead, rememberPrincipal, resolvePrincipal, userPart, type Principal } from './principal.js';
import { isRefusal, MAX_TOKEN_BYTES, refusal, type Refusal } from './refusals.js';
import type { TokenVerifier } from './token-verifier.js';

/** What a caller presented: an API key, or a bearer token with the verifier of the gateway it was sent to. */
export type Credential =
  | { kind: 'API_KEY'; secret: string }
  | { kind: 'BEARER_TOKEN'; token: string; verifier: TokenVerifier };

const BEARER = /^Bearer +(\S+) *$/i;

/**
 * The credential of a request from its `X-API-KEY` and `Authorization` values (headers, or a
 * WebSocket's connection parameters): null when it sent none, a refusal when it sent two, or a
 * bearer token the gateway does not take or that is too large to look at. Another Authorization
 * scheme is no credential of the gateway's and is left alone.
 */
export function credentialOf(
  apiKey: string | null | undefined,
  authorization: string | null | undefined,
  verifier: TokenVerifier | undefined,
): Credential | Refusal | null {
  const token = authorization ? BEARER.exec(authorization)?.[1] : undefined;
  if (token === undefined) return apiKey ? { kind: 'API_KEY', secret: apiKey } : null;
  if (apiKey) return refusal('TWO_CREDENTIALS');
  if (!verifier) return refusal('BEARER_NOT_ACCEPTED');
  if (token.length > MAX_TOKEN_BYTES) return refusal('TOKEN_TOO_LARGE');
  return { kind: 'BEARER_TOKEN', token, verifier };
}

/** The principal of a verified token, cached as a key's is; the identity's use is recorded once per cache period. */
async function tokenPrincipal(token: string, verifier: TokenVerifier): Promise<Principal | Refusal> {
  const caching = await cacheable();
  const id = `bearer:${verifier.id}:${hash('sha256', token, 'base64url')}`;
  return cachedOrRead(id, caching, (readAt) => readToken(id, token, verifier, caching, readAt));
}

/** Verifies a token and finds (or makes) its user: the principal `tokenPrincipal` caches. */
async function readToken(
  id: string,
  token: string,
  verifier: TokenVerifier,
  caching: boolean,
  readAt: number,
): Promise<Principal | Refusal> {
  const verified = await verifier.verify(token);
  if (isRefusal(verified)) return verified;
  const signedIn = await userOfToken(verified, verifier.config.createUsers);
  if (isRefusal(signedIn)) return signedIn;
  const principal: Principal = {
    ...userPart(signedIn.user),
    credential: 'BEARER_TOKEN',
    holder: `user:${signedIn.user.id}`,
    expiresAt: verified.expiresAt,
    permission: verified.permission,
  };
  rememberPrincipal(id, principal, caching, { readAt, acceptedUntil: verified.acceptedUntil });
  if (caching)
    void prisma()
      .userIdentity.update({ where: { id: signedIn.identityId }, data: { lastUsedAt: new Date() } })
      .catch(() => {});
  return principal;
}

/** The principal of a credential, or why it is refused. */
export async function authenticate(credential: Credential): Promise<Principal | Refusal> {
  if (credential.kind === 'BEARER_TOKEN') return tokenPrincipal(credential.token, credential.verifier);
  return (await resolvePrincipal(credential.secret)) ?? refusal('INVALID_API_KEY');
}

/** The principal of a request's credential (none: null), or why it is refused. */
export async function authenticateRequest(
  apiKey: string | null | undefined,
  authorization: string | null | undefined,
  verifier: TokenVerifier | undefined,
): Promise<{ credential: Credential | null; principal: Principal | null; refused?: Refusal }> {
  const credential = credentialOf(apiKey, authorization, verifier);
  if (credential === null) return { credential, principal: null };
  const principal = isRefusal(credential) ? credential : await authenticate(credential);
  if (!isRefusal(principal)) return { credential: credential as Credential, principal };
  countRefusal(principal.reason);
  return { credential: null, principal: null, refused: principal };
}
