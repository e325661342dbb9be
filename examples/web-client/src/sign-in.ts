import { UserManager, type User } from 'oidc-client-ts';

/** Where the page signs its user in: the issuer, the page's client id there, and the gateway's audience (its API). */
export interface SignInSettings {
  issuer: string;
  clientId: string;
  audience: string;
  /** The gateway scope asked for: whiteboard.read, whiteboard.write or whiteboard.admin. */
  scope: string;
  /** Seconds before the access token expires when it is renewed. */
  renewBefore: number;
}

/** The settings of the page's address (`?issuer=...&client_id=...&audience=...`), or undefined: sign-in is not offered. */
export function settingsFromUrl(params: URLSearchParams): SignInSettings | undefined {
  const [issuer, clientId, audience] = ['issuer', 'client_id', 'audience'].map((name) => params.get(name));
  if (!issuer || !clientId || !audience) return undefined;
  return {
    issuer,
    clientId,
    audience,
    scope: params.get('scope') ?? 'whiteboard.write',
    renewBefore: Number(params.get('renew_before') ?? 60),
  };
}

/**
 * The authorization code flow with PKCE (oidc-client-ts), for a page with no secret: the page goes to
 * the issuer's sign-in and comes back to itself with a code, which it exchanges for tokens. The
 * access token is renewed with the refresh token `renewBefore` seconds before it expires; the tokens
 * live in this tab's session storage only.
 */
export class SignIn {
  private readonly manager: UserManager;

  constructor(readonly settings: SignInSettings) {
    const here = `${location.origin}${location.pathname}`;
    this.manager = new UserManager({
      authority: settings.issuer,
      client_id: settings.clientId,
      redirect_uri: here,
      post_logout_redirect_uri: here,
      response_type: 'code',
      // offline_access: a refresh token, so renewing needs no hidden frame at the issuer.
      scope: `openid email profile offline_access ${settings.scope}`,
      prompt: 'consent',
      // RFC 8707: the access token is for the gateway, whose audience it then carries.
      // Auth0 names the API by `audience` instead.
      extraQueryParams: { resource: settings.audience, audience: settings.audience },
      extraTokenParams: { resource: settings.audience },
      automaticSilentRenew: true,
      accessTokenExpiringNotificationTimeInSeconds: settings.renewBefore,
    });
  }

  /** Sends the browser to the issuer's sign-in page. */
  start(): Promise<void> {
    return this.manager.signinRedirect({ url_state: location.search });
  }

  /** On the way back from the issuer (`?code=...`): exchanges the code, restores the page's address; else the user signed in before, if any. */
  async resume(): Promise<User | null> {
    const params = new URLSearchParams(location.search);
    if (params.has('code') && params.has('state')) {
      const user = await this.manager.signinCallback();
      history.replaceState(null, '', `${location.pathname}${user?.url_state ?? ''}`);
      return user ?? null;
    }
    const user = await this.manager.getUser();
    return user && !user.expired ? user : null;
  }

  /** The current access token, for the Authorization header. */
  async accessToken(): Promise<string | undefined> {
    return (await this.manager.getUser())?.access_token;
  }

  /** Calls `renewed` with each new user after a renewal. */
  onRenewed(renewed: (user: User) => void): void {
    this.manager.events.addUserLoaded(renewed);
  }

  /** Forgets the tokens here and signs out at the issuer, which sends the browser back. */
  async signOut(): Promise<void> {
    await this.manager.signoutRedirect();
  }
}
