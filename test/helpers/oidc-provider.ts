import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type JWK } from 'jose';
import Provider from 'oidc-provider';
import { tokenScopes } from '../../src/auth/refusals.js';
import { users } from '../../src/db/seed/data.js';
import { demoKeyHolders } from '../../src/db/seed/keys.js';
import type { ApiKeyPermission } from '../../src/generated/prisma/enums.js';

/** The gateway's audience in every test: the API's identifier at the provider. */
export const AUDIENCE = 'https://whiteboard-gateway.test/api';
/** Every scope the gateway reads, for the resource server's list. */
export const GATEWAY_SCOPES = 'whiteboard.read whiteboard.write whiteboard.admin';

/** A person at the provider: their subject is the key of `accounts`. */
export interface Account {
  email: string;
  emailVerified: boolean;
  givenName?: string;
  familyName?: string;
  /** Claims of this person's access tokens beyond the standard ones (an issuer's own). */
  extraClaims?: Record<string, unknown>;
}

/** The demo key holders as people of the provider (subject: the holder's name, as DemoKeys names it), with their verified e-mails. */
export const demoAccounts = (): Record<string, Account> =>
  Object.fromEntries(
    Object.keys(demoKeyHolders).map((holder) => [
      holder,
      { email: users[holder as keyof typeof users].email, emailVerified: true },
    ]),
  );

/** The gateway scope that allows what a key of `permission` allows. */
export const scopeOf = (permission: ApiKeyPermission): string =>
  Object.entries(tokenScopes).find(([, allowed]) => allowed === permission)![0];

/** Each demo key holder's access token, by name, with the scope of its key's permission: what its key may do. */
export async function demoTokens(
  provider: TestProvider,
  holders: readonly (keyof typeof demoKeyHolders)[],
): Promise<Map<string, string>> {
  const tokens = new Map<string, string>();
  for (const holder of holders) tokens.set(holder, await provider.signIn(holder, scopeOf(demoKeyHolders[holder])));
  return tokens;
}

/** A machine client of the client-credentials flow. */
export interface ServiceClient {
  id: string;
  secret: string;
  /** The gateway scopes it may ask for. */
  scope: string;
}

export interface ProviderOptions {
  accounts?: Record<string, Account>;
  services?: ServiceClient[];
  /** Where the browser client of the authorization code flow may be sent back; the tests' own by default. */
  redirectUris?: string[];
  /** Origins of browser applications that call the token endpoint (CORS), as the web client does. */
  webOrigins?: string[];
  /** Seconds an access token lives. @default 300 */
  accessTokenTtl?: number;
}

/** The public client (no secret, PKCE) of the browser application and the tests' own code flow. */
export const WEB_CLIENT_ID = 'whiteboard-web';
const TEST_REDIRECT = 'http://127.0.0.1/callback';

export interface SigningKey {
  kid: string;
  privateJwk: JWK;
  publicJwk: JWK;
}

/** A new ES256 signing key, as an issuer publishes it. */
export async function newSigningKey(kid = randomBytes(6).toString('hex')): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  const meta = { kid, alg: 'ES256', use: 'sig' };
  return {
    kid,
    privateJwk: { ...(await exportJWK(privateKey)), ...meta },
    publicJwk: { ...(await exportJWK(publicKey)), ...meta },
  };
}

const base64url = (buffer: Buffer) => buffer.toString('base64url');

/** A cookie jar of one user agent: the cookies the provider set, sent back on the next request. */
class Browser {
  private readonly cookies = new Map<string, string>();
  async fetch(url: string, init: RequestInit = {}): Promise<Response> {
    const cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const response = await fetch(url, { ...init, redirect: 'manual', headers: { ...init.headers, cookie } });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const at = pair.indexOf('=');
      this.cookies.set(pair.slice(0, at), pair.slice(at + 1));
    }
    return response;
  }
}

async function json(response: Response): Promise<Record<string, unknown>> {
  const body = (await response.json()) as Record<string, unknown>;
  if (!response.ok) throw new Error(`the provider answered ${response.status}: ${JSON.stringify(body)}`);
  return body;
}

/**
 * A real OpenID provider (`oidc-provider`, the certified implementation) on a loopback port, with
 * keys of its own: it issues JWT access tokens for AUDIENCE through its real flows, the authorization
 * code flow with PKCE (a login page that asks the subject's name) and client credentials. Its keys can
 * be rotated (a new provider behind the same issuer URL, publishing the new key before the old one),
 * and it can be stopped and started again.
 */
export class TestProvider {
  private provider!: InstanceType<typeof Provider>;
  private readonly server = createServer((request, response) => void this.handle(request, response));
  issuer = '';
  keys: SigningKey[] = [];
  private available = true;

  private constructor(private readonly options: ProviderOptions) {}

  static async start(options: ProviderOptions = {}): Promise<TestProvider> {
    const test = new TestProvider(options);
    await new Promise<void>((resolve) => test.server.listen(0, '127.0.0.1', resolve));
    test.issuer = `http://127.0.0.1:${(test.server.address() as AddressInfo).port}`;
    await test.rotate();
    return test;
  }

  /** Signs from now on with a new key, still publishing the old ones; answers the new key. */
  async rotate(): Promise<SigningKey> {
    const key = await newSigningKey();
    this.keys = [key, ...this.keys];
    this.provider = this.configure();
    return key;
  }

  /** Whether the provider answers at all (false: every request is refused, as a provider that is down). */
  setAvailable(available: boolean): void {
    this.available = available;
  }

  private configure(): InstanceType<typeof Provider> {
    const { accounts = {}, services = [], accessTokenTtl = 300 } = this.options;
    const provider = new Provider(this.issuer, {
      jwks: { keys: this.keys.map((key) => key.privateJwk) },
      clients: [
        {
          client_id: WEB_CLIENT_ID,
          token_endpoint_auth_method: 'none',
          grant_types: ['authorization_code', 'refresh_token'],
          response_types: ['code'],
          redirect_uris: [TEST_REDIRECT, ...(this.options.redirectUris ?? [])],
          post_logout_redirect_uris: this.options.redirectUris ?? [],
        },
        ...services.map((service) => ({
          client_id: service.id,
          client_secret: service.secret,
          grant_types: ['client_credentials'],
          response_types: [],
          redirect_uris: [],
          scope: service.scope,
        })),
      ],
      clientDefaults: { id_token_signed_response_alg: 'ES256' },
      clientBasedCORS: (_ctx: unknown, origin: string) => (this.options.webOrigins ?? []).includes(origin),
      cookies: { keys: ['test-provider-cookies'] },
      claims: { email: ['email', 'email_verified'], profile: ['given_name', 'family_name'] },
      scopes: ['openid', 'offline_access', 'email', 'profile', ...GATEWAY_SCOPES.split(' ')],
      features: {
        devInteractions: { enabled: false },
        clientCredentials: { enabled: true },
        rpInitiatedLogout: {
          enabled: true,
          logoutSource: (ctx: { body: unknown }, form: string) => {
            ctx.body = `<!doctype html><title>Sign out</title>${form}<button type="submit" form="op.logoutForm" name="logout" value="yes">Yes, sign me out</button>`;
          },
        },
        resourceIndicators: {
          enabled: true,
          defaultResource: () => AUDIENCE,
          useGrantedResource: () => true,
          // Any resource is an API of this provider, so a token for another audience comes from a real flow too.
          getResourceServerInfo: (_ctx: unknown, resource: string) => ({
            scope: GATEWAY_SCOPES,
            audience: resource,
            accessTokenFormat: 'jwt',
            accessTokenTTL: accessTokenTtl,
            jwt: { sign: { alg: 'ES256' } },
          }),
        },
      },
      // As Keycloak does: the access token carries who the person is, so a first sign-in can link by e-mail.
      extraTokenClaims: (_ctx: unknown, token: { accountId?: string }) => {
        const account = token.accountId ? accounts[token.accountId] : undefined;
        return (
          account && {
            email: account.email,
            email_verified: account.emailVerified,
            given_name: account.givenName,
            family_name: account.familyName,
            ...account.extraClaims,
          }
        );
      },
      findAccount: (_ctx: unknown, sub: string) =>
        accounts[sub] && {
          accountId: sub,
          claims: () => ({
            sub,
            email: accounts[sub].email,
            email_verified: accounts[sub].emailVerified,
            given_name: accounts[sub].givenName,
            family_name: accounts[sub].familyName,
          }),
        },
      interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
      pkce: { required: () => true },
      ttl: {
        AccessToken: accessTokenTtl,
        ClientCredentials: accessTokenTtl,
        IdToken: accessTokenTtl,
        RefreshToken: 3600,
        Interaction: 600,
        Session: 3600,
        Grant: 3600,
      },
      renderError: (ctx: { body: unknown }, out: Record<string, string>) => {
        ctx.body = JSON.stringify(out);
      },
    });
    // Behind this test's own server on loopback: nothing in front rewrites the scheme.
    provider.proxy = false;
    return provider;
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    if (!this.available) return void response.writeHead(503).end();
    try {
      const interaction = /^\/interaction\/([\w-]+)$/.exec(request.url ?? '');
      if (interaction) return await this.interact(request, response);
      this.provider.callback()(request, response);
    } catch (error) {
      response.writeHead(500).end(String(error));
    }
  }

  /** The provider's login page: asks the subject's name, then signs it in and grants what the client asked. */
  private async interact(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const details = await this.provider.interactionDetails(request, response);
    if (request.method === 'GET') {
      const page = `<!doctype html><title>Sign in</title><form method="post"><label>User <input name="login" autofocus></label><button type="submit">Sign in</button></form>`;
      return void response.writeHead(200, { 'content-type': 'text/html' }).end(page);
    }
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const accountId = new URLSearchParams(Buffer.concat(chunks).toString()).get('login') ?? '';
    const clientId = details.params.client_id as string;
    const grant = new this.provider.Grant({ accountId, clientId });
    // The gateway's scopes are the provider's too (a service client's metadata lists them), so both lists grant them.
    grant.addOIDCScope(String(details.params.scope));
    grant.addResourceScope(String(details.params.resource ?? AUDIENCE), String(details.params.scope));
    const grantId = await grant.save();
    await this.provider.interactionFinished(
      request,
      response,
      { login: { accountId }, consent: { grantId } },
      { mergeWithLastSubmission: false },
    );
  }

  /** An access token for `subject` through the authorization code flow with PKCE, as a browser would get it. */
  async signIn(subject: string, scope = 'whiteboard.read', resource = AUDIENCE): Promise<string> {
    const browser = new Browser();
    const verifier = base64url(randomBytes(32));
    const challenge = base64url(createHash('sha256').update(verifier).digest());
    const authorize = new URL('/auth', this.issuer);
    authorize.search = new URLSearchParams({
      client_id: WEB_CLIENT_ID,
      response_type: 'code',
      redirect_uri: TEST_REDIRECT,
      scope: `openid email profile ${scope}`,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      resource,
      state: base64url(randomBytes(8)),
    }).toString();
    let response = await browser.fetch(authorize.href);
    const loginPage = new URL(response.headers.get('location')!, this.issuer).href;
    response = await browser.fetch(loginPage, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ login: subject }).toString(),
    });
    // Back to the provider, which sends the browser to the client with the code.
    while (!response.headers.get('location')?.startsWith(TEST_REDIRECT)) {
      const next = response.headers.get('location');
      if (!next) throw new Error(`the sign-in stopped at ${response.status}: ${await response.text()}`);
      response = await browser.fetch(new URL(next, this.issuer).href);
    }
    const code = new URL(response.headers.get('location')!).searchParams.get('code')!;
    const token = await json(
      await fetch(new URL('/token', this.issuer), {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code,
          code_verifier: verifier,
          client_id: WEB_CLIENT_ID,
          redirect_uri: TEST_REDIRECT,
          resource,
        }).toString(),
      }),
    );
    return token.access_token as string;
  }

  /** An access token of a machine client through the client-credentials flow, for `resource` (AUDIENCE by default). */
  async clientCredentials(service: ServiceClient, scope = service.scope, resource = AUDIENCE): Promise<string> {
    const token = await json(
      await fetch(new URL('/token', this.issuer), {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: `Basic ${Buffer.from(`${service.id}:${service.secret}`).toString('base64')}`,
        },
        body: new URLSearchParams({ grant_type: 'client_credentials', scope, resource }).toString(),
      }),
    );
    return token.access_token as string;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
