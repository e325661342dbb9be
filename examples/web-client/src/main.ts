import { BoardEventsDocument, BoardsDocument, MeDocument, RenameBoardDocument } from './generated/graphql/graphql.js';
import { execute, type Gateway, GraphQLRequestError, mutate, subscribe, subscriptions } from './graphql.js';
import { boardsOverRest } from './rest.js';
import { SignIn, settingsFromUrl } from './sign-in.js';
import { board, byId, el, showName } from './view.js';

const status = (text: string) => (byId('status').textContent = text);

/** What the page says when a call fails: a refusal has a code (and a reason, for a credential); a failed fetch is most often CORS. */
function explain(error: unknown, gateway: Gateway): string {
  if (error instanceof GraphQLRequestError)
    return error.errors
      .map((item) => `${item.extensions?.reason ?? item.extensions?.code ?? 'ERROR'}: ${item.message}`)
      .join('; ');
  if (error instanceof TypeError)
    return `The gateway at ${gateway.url} did not answer this page: is it running, and does its CORS_ORIGINS list ${location.origin}?`;
  return String(error);
}

async function rename(gateway: Gateway, rowId: number, name: string): Promise<void> {
  try {
    const { updateWhiteboard } = await mutate(gateway, RenameBoardDocument, { rowId, name });
    showName(updateWhiteboard.whiteboard.rowId, updateWhiteboard.whiteboard.name);
    status(`Renamed board ${rowId} to ${updateWhiteboard.whiteboard.name}`);
  } catch (error) {
    status(explain(error, gateway));
  }
}

/** How long the page waits before it subscribes again after the connection was lost. */
const RECONNECT_MS = 1_000;

/**
 * Follows the organization's board events: a rename made anywhere shows here as it commits; answers
 * how to stop. A lost connection (a laptop that slept, a deploy) is taken up again from the cursor of
 * the last event shown, so nothing committed meanwhile is missed or shown twice.
 */
function followRenames(gateway: Gateway, organizationId: number): () => void {
  let after: string | undefined;
  let client = subscriptions(gateway);
  let stop = () => {};
  let stopped = false;
  const follow = () => {
    stop = subscribe(
      client,
      BoardEventsDocument,
      { organizationId, after },
      {
        next: ({ organizationWhiteboardEvents: event }) => {
          if ('cursor' in event) after = event.cursor;
          const name = 'node' in event && event.node && 'name' in event.node ? event.node.name : undefined;
          if (name !== undefined && 'rowId' in event) showName(event.rowId, name);
          const what = 'kind' in event ? `${event.kind} board ${event.rowId}` : 'event';
          byId('events').prepend(el('li', {}, name === undefined ? what : `${what}: ${name}`));
        },
        error: (error) => {
          status(`Live updates: ${explain(error, gateway)}`);
          // An error result (CURSOR_EXPIRED, say) leaves the stream open; a lost connection does not.
          if (error instanceof GraphQLRequestError || stopped) return;
          void client.dispose();
          client = subscriptions(gateway);
          setTimeout(() => stopped || follow(), RECONNECT_MS);
        },
      },
    );
  };
  follow();
  return () => {
    stopped = true;
    stop();
    void client.dispose();
  };
}

async function showRestBoards(gateway: Gateway): Promise<void> {
  try {
    const { boards, total } = await boardsOverRest(gateway);
    byId('rest-total').textContent = `${total} boards (X-Total-Count)`;
    byId('rest-boards').replaceChildren(...boards.map((row) => el('li', {}, `${row.id}: ${row.name}`)));
  } catch (error) {
    byId('rest-total').textContent = explain(error, gateway);
  }
}

/** Shows the boards and follows them; answers how to stop following (undefined: nothing to follow). */
async function connect(gateway: Gateway): Promise<(() => void) | undefined> {
  status('Loading…');
  try {
    const { me } = await execute(gateway, MeDocument, {});
    const organization = me.activeOrganization;
    if (!organization) return void status(`${me.email} has no active organization`);
    byId('organization').textContent = `${organization.name}, as ${me.email}`;
    byId('organization').dataset.rowId = String(organization.rowId);
    const { whiteboards } = await execute(gateway, BoardsDocument, { first: 20 });
    byId('boards').replaceChildren(
      ...whiteboards.edges.map(({ node }) => board(node, (rowId, name) => void rename(gateway, rowId, name))),
    );
    status(`${whiteboards.totalCount} boards`);
    const stop = followRenames(gateway, organization.rowId);
    await showRestBoards(gateway);
    return stop;
  } catch (error) {
    status(explain(error, gateway));
    return undefined;
  }
}

/**
 * The page's settings (gateway, issuer, ...): in its address, and kept in this tab for the ways back
 * from the issuer, which bring only `?code=...&state=...` (signed in) or nothing (signed out).
 */
function pageSettings(): URLSearchParams {
  const here = new URLSearchParams(location.search);
  if (!here.has('gateway')) return new URLSearchParams(sessionStorage.getItem('page-settings') ?? '');
  sessionStorage.setItem('page-settings', location.search);
  return here;
}

const settings = pageSettings();
const form = byId<HTMLFormElement>('connect');
const urlInput = byId<HTMLInputElement>('gateway-url');
const gatewayUrl = () => urlInput.value.replace(/\/$/, '');
urlInput.value = settings.get('gateway') ?? 'http://localhost:4000';
form.addEventListener('submit', (event) => {
  event.preventDefault();
  const key = byId<HTMLInputElement>('api-key').value;
  void connect({ url: gatewayUrl(), credentials: async () => ({ 'X-API-KEY': key }) });
});

/**
 * Signing in at the issuer the page's URL names: its access token calls both doors and holds the
 * subscription. A renewed token reaches the next call at once; the subscription's socket is opened
 * again with it, since the gateway ends a stream when the token it was opened with expires.
 */
async function signedIn(signIn: SignIn): Promise<void> {
  const expiry = (seconds: number | undefined) => new Date(Date.now() + (seconds ?? 0) * 1000).toLocaleTimeString();
  const user = await signIn.resume();
  byId('sign-in').hidden = !!user;
  byId('sign-out').hidden = !user;
  if (!user) return;
  byId('signed-in').textContent =
    `Signed in at ${signIn.settings.issuer}; the access token expires at ${expiry(user.expires_in)}`;
  const gateway: Gateway = {
    url: gatewayUrl(),
    credentials: async () => ({ Authorization: `Bearer ${await signIn.accessToken()}` }),
  };
  let stop = await connect(gateway);
  let renewals = 0;
  signIn.onRenewed((renewed) => {
    renewals++;
    byId('signed-in').textContent = `Token renewed (${renewals}); it expires at ${expiry(renewed.expires_in)}`;
    stop?.();
    stop = followRenames(gateway, Number(byId('organization').dataset.rowId));
  });
}

const signInSettings = settingsFromUrl(settings);
if (signInSettings) {
  const signIn = new SignIn(signInSettings);
  byId('sign-in').hidden = false;
  byId('sign-in').addEventListener('click', () => void signIn.start());
  byId('sign-out').addEventListener('click', () => void signIn.signOut());
  signedIn(signIn).catch((error) => status(`Sign-in failed: ${String(error)}`));
}
