import { BoardEventsDocument, BoardsDocument, MeDocument, RenameBoardDocument } from './generated/graphql/graphql.js';
import { execute, GraphQLRequestError, subscribe, subscriptions } from './graphql.js';
import { boardsOverRest } from './rest.js';
import { board, byId, el, showName } from './view.js';

interface Gateway {
  url: string;
  key: string;
}

const status = (text: string) => (byId('status').textContent = text);

/** What the page says when a call fails: a refusal has a code; a failed fetch is most often CORS. */
function explain(error: unknown, gateway: Gateway): string {
  if (error instanceof GraphQLRequestError)
    return error.errors.map((item) => `${item.extensions?.code ?? 'ERROR'}: ${item.message}`).join('; ');
  if (error instanceof TypeError)
    return `The gateway at ${gateway.url} did not answer this page: is it running, and does its CORS_ORIGINS list ${location.origin}?`;
  return String(error);
}

async function rename(gateway: Gateway, rowId: number, name: string): Promise<void> {
  try {
    const { updateWhiteboard } = await execute(gateway, RenameBoardDocument, { rowId, name });
    showName(updateWhiteboard.whiteboard.rowId, updateWhiteboard.whiteboard.name);
    status(`Renamed board ${rowId} to ${updateWhiteboard.whiteboard.name}`);
  } catch (error) {
    status(explain(error, gateway));
  }
}

/** Follows the organization's board events: a rename made anywhere shows here as it commits. */
function followRenames(gateway: Gateway, organizationId: number): void {
  subscribe(
    subscriptions(gateway),
    BoardEventsDocument,
    { organizationId },
    {
      next: ({ organizationWhiteboardEvents: event }) => {
        const name = 'node' in event && event.node && 'name' in event.node ? event.node.name : undefined;
        if (name !== undefined && 'rowId' in event) showName(event.rowId, name);
        const what = 'kind' in event ? `${event.kind} board ${event.rowId}` : 'event';
        byId('events').prepend(el('li', {}, name === undefined ? what : `${what}: ${name}`));
      },
      error: (error) => status(`Live updates stopped: ${explain(error, gateway)}`),
    },
  );
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

async function connect(gateway: Gateway): Promise<void> {
  status('Loading…');
  try {
    const { me } = await execute(gateway, MeDocument, {});
    const organization = me.activeOrganization;
    if (!organization) return void status(`${me.email} has no active organization`);
    byId('organization').textContent = `${organization.name}, as ${me.email}`;
    const { whiteboards } = await execute(gateway, BoardsDocument, { first: 20 });
    byId('boards').replaceChildren(
      ...whiteboards.edges.map(({ node }) => board(node, (rowId, name) => void rename(gateway, rowId, name))),
    );
    status(`${whiteboards.totalCount} boards`);
    followRenames(gateway, organization.rowId);
    await showRestBoards(gateway);
  } catch (error) {
    status(explain(error, gateway));
  }
}

const form = byId<HTMLFormElement>('connect');
const urlInput = byId<HTMLInputElement>('gateway-url');
urlInput.value = new URLSearchParams(location.search).get('gateway') ?? 'http://localhost:4000';
form.addEventListener('submit', (event) => {
  event.preventDefault();
  void connect({ url: urlInput.value.replace(/\/$/, ''), key: byId<HTMLInputElement>('api-key').value });
});
