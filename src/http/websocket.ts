import type { IncomingMessage, Server } from 'node:http';
import {
  GraphQLError,
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  type GraphQLFormattedError,
} from 'graphql';
import { CloseCode, handleProtocols, makeServer, type SubscribePayload } from 'graphql-ws';
import { WebSocketServer, type WebSocket } from 'ws';
import { authenticateRequest } from '../auth/credentials.js';
import { isDatabaseUnavailable } from '../db/unavailable.js';
import { logError } from '../observability/logger.js';
import { tooManyOperations } from '../schema/errors.js';
import type { Gateway } from './app.js';
import { allowsUpgrade } from './cors.js';
import { maskError } from './graphql-errors.js';
import { idRequired, notInList } from './trusted-documents.js';
import { closeSoon, guardSocket, keepAlive, WaitingRoom } from './websocket-door.js';

const GRAPHQL_PATH = '/graphql';
/** Operations one socket may run at once (its subscriptions, which MAX_SUBSCRIPTIONS_PER_KEY bounds per key as well, and queries). */
export const OPERATIONS_PER_SOCKET = 64;
/** The messages a client sends in graphql-transport-ws; any other type is a bad request, not a fault of the server. */
const CLIENT_MESSAGES = new Set(['connection_init', 'ping', 'pong', 'subscribe', 'complete']);

type Enveloped = ReturnType<Gateway['yoga']['getEnveloped']>;

type Params = Readonly<Record<string, unknown>> | undefined;
type Headers = Record<string, string | string[] | undefined>;

/** What graphql-ws keeps of each socket besides its own state. */
interface Extra {
  request: IncomingMessage;
  socket: WebSocket;
  /** Called once the socket signs in, with whose key or token it is. */
  signedIn(holder: string): void;
}

/** A credential of a WebSocket client: in its connection parameters (browsers cannot set headers on a WebSocket), else the upgrade request's header. */
function credentialValue(params: Params, headers: Headers, name: 'X-API-KEY' | 'Authorization'): string | undefined {
  const given = params && Object.entries(params).find(([key]) => key.toLowerCase() === name.toLowerCase())?.[1];
  if (typeof given === 'string') return given;
  const header = headers[name.toLowerCase()];
  return typeof header === 'string' ? header : undefined;
}

/** The credential's two values as headers, for the Request each operation's context is made from. */
const credentialHeaders = (params: Params, headers: Headers): Record<string, string> =>
  Object.fromEntries(
    (['X-API-KEY', 'Authorization'] as const)
      .map((name) => [name, credentialValue(params, headers, name)])
      .filter(([, value]) => value !== undefined),
  );

/** graphql-ws's close reason is at most 123 bytes. */
const closeReason = (message: string) => Buffer.from(message).subarray(0, 123).toString();

/** An error as the client reads it: what HTTP answers hold, without the status the HTTP door reads (`extensions.http`). */
function formatted(error: GraphQLError): GraphQLFormattedError {
  const json = error.toJSON();
  if (!json.extensions || !('http' in json.extensions)) return json;
  const { http: _status, ...extensions } = json.extensions;
  return { ...json, extensions };
}

/** What an operation that could not start tells its client: its own error, or a masked one (the log keeps a bug). */
function operationError(error: unknown): GraphQLError {
  if (error instanceof GraphQLError) return error;
  const masked = maskError(error, 'Unexpected error.');
  if (!isDatabaseUnavailable(error)) logError(error, 'a WebSocket operation could not start');
  return masked instanceof GraphQLError ? masked : new GraphQLError(masked.message);
}

/** The operation's result, or the error it threw as one. */
async function answered<T>(run: () => T | Promise<T>): Promise<T | ExecutionResult> {
  try {
    return await run();
  } catch (error) {
    return { errors: [operationError(error)] };
  }
}

/** The document a subscribe message names: as on HTTP, only a trusted one by its id when TRUSTED_DOCUMENTS is set. */
function documentOf(
  gateway: Pick<Gateway, 'trustedDocuments'>,
  enveloped: Enveloped,
  payload: SubscribePayload,
): DocumentNode | GraphQLError {
  if (!gateway.trustedDocuments) return enveloped.parse(payload.query);
  const id = (payload.extensions?.persistedQuery as { sha256Hash?: unknown } | undefined)?.sha256Hash;
  if (payload.query || typeof id !== 'string') return idRequired();
  return gateway.trustedDocuments.get(id) ?? notInList(id);
}

/**
 * Serves GraphQL over WebSocket (the graphql-transport-ws protocol of graphql-ws) on `server`'s
 * /graphql, through the same Yoga (envelop) pipeline and context factory as HTTP, so keys, the
 * operation guard and subscriptions are the same. Every frame is bounded before it is read: a
 * message by MAX_BODY_BYTES, all a socket sends before it signs in by SIGN_IN_BYTES, the sockets
 * waiting to sign in per address and in all, the time they may wait, the sockets of one key, the
 * operations of one socket and what a client leaves unread. Answers a function that closes every socket.
 */
export function serveGraphQLOverWebSocket(
  server: Server,
  gateway: Pick<Gateway, 'yoga' | 'trustedDocuments' | 'corsOrigins' | 'tokens' | 'webSocket'>,
): () => Promise<void> {
  const limits = gateway.webSocket;
  const waiting = new WaitingRoom(limits.unauthenticatedPerAddress);
  const socketsOf = new Map<string, number>();
  const addressOf = (request: IncomingMessage) => request.socket.remoteAddress ?? 'unknown';
  const sockets = new WebSocketServer({
    server,
    path: GRAPHQL_PATH,
    maxPayload: limits.maxMessageBytes,
    // No compression: a small frame must not inflate into a large message.
    perMessageDeflate: false,
    autoPong: false,
    handleProtocols,
    verifyClient: ({ req }, accept) => {
      // Browsers send any page's Origin on a WebSocket and enforce nothing: the server applies CORS_ORIGINS itself.
      if (!allowsUpgrade(gateway.corsOrigins, req.headers)) return accept(false, 403, 'Origin not allowed');
      const full = waiting.refusal(addressOf(req));
      if (full) return accept(false, full.status, full.message, { 'Retry-After': '1' });
      accept(true);
    },
  });
  const protocol = makeServer<Params, Extra>({
    connectionInitWaitTimeout: limits.initTimeoutMs,
    onConnect: async (ctx) => {
      const { connectionParams: params } = ctx;
      const { headers } = ctx.extra.request;
      const { principal, refused } = await authenticateRequest(
        credentialValue(params, headers, 'X-API-KEY'),
        credentialValue(params, headers, 'Authorization'),
        gateway.tokens,
      );
      // graphql-ws would close with a bare "Forbidden"; closing first keeps these reasons (ws ignores a second close).
      if (!principal) {
        closeSoon(
          ctx.extra.socket,
          CloseCode.Forbidden,
          refused?.bearer
            ? closeReason(
                `Forbidden: ${refused.reason}: the bearer token (Authorization in the connection parameters) is refused`,
              )
            : 'Forbidden: the API key (X-API-KEY in the connection parameters) is missing, unknown, revoked or expired',
        );
        return false;
      }
      if ((socketsOf.get(principal.holder) ?? 0) >= limits.socketsPerHolder) {
        closeSoon(
          ctx.extra.socket,
          CloseCode.Forbidden,
          `Forbidden: this key holds ${limits.socketsPerHolder} open WebSockets, the most it may; close one first`,
        );
        return false;
      }
      ctx.extra.signedIn(principal.holder);
      return true;
    },
    // What Yoga does for HTTP: an operation that throws is answered with its error, masked, not a closed socket.
    execute: (args) => answered(() => (args.rootValue as Enveloped).execute(args)),
    subscribe: (args) => answered(() => (args.rootValue as Enveloped).subscribe(args)),
    onSubscribe: async (ctx, _id, payload) => {
      // graphql-ws has counted this one already.
      if (Object.keys(ctx.subscriptions).length > OPERATIONS_PER_SOCKET)
        return [tooManyOperations(OPERATIONS_PER_SOCKET)];
      try {
        const request = new Request(`http://localhost${GRAPHQL_PATH}`, {
          headers: credentialHeaders(ctx.connectionParams, ctx.extra.request.headers),
        });
        const enveloped = gateway.yoga.getEnveloped({ request, params: payload });
        const document = documentOf(gateway, enveloped, payload);
        if (document instanceof GraphQLError) return [document];
        const errors = enveloped.validate(enveloped.schema, document);
        if (errors.length > 0) return errors;
        const args: ExecutionArgs = {
          schema: enveloped.schema,
          document,
          operationName: payload.operationName,
          variableValues: payload.variables,
          contextValue: await enveloped.contextFactory(),
          rootValue: enveloped,
        };
        return args;
      } catch (error) {
        // A document that does not parse, a credential refused since the socket signed in, a database away.
        return [operationError(error)];
      }
    },
    onNext: (_ctx, _id, _payload, _args, result) =>
      result.errors ? { ...(result as ExecutionResult), errors: result.errors.map(formatted) } : undefined,
    onError: (_ctx, _id, _payload, errors) => errors.map(formatted),
  });

  const stopKeepAlive = keepAlive(sockets.clients);
  sockets.on('connection', (socket, request) => {
    const leave = waiting.enter(addressOf(request));
    // More upgrades than places passed their check at once: this one is told to come back.
    if (!leave) return closeSoon(socket, 1013, 'Try Again Later: too many connections wait to sign in');
    let holder: string | undefined;
    let receive: (data: string) => Promise<void> = async () => {};
    const door = guardSocket(socket, request, (data) => {
      let message: { type?: unknown } | undefined;
      try {
        message = JSON.parse(data);
      } catch {
        message = undefined;
      }
      // graphql-ws throws on a type it does not expect of a client, which would read as a fault of the server.
      if (typeof message?.type !== 'string' || !CLIENT_MESSAGES.has(message.type))
        return closeSoon(socket, CloseCode.BadRequest, 'Invalid message received');
      // graphql-ws's parseMessage takes a parsed message as it takes text: parsed once.
      receive(message as unknown as string).catch((error: unknown) => {
        if (isDatabaseUnavailable(error))
          return closeSoon(socket, 1013, 'Try Again Later: the database cannot be reached');
        logError(error, 'a WebSocket message failed');
        closeSoon(socket, CloseCode.InternalServerError, 'Internal server error');
      });
    });
    const closed = protocol.opened(
      {
        ...door.transport,
        onMessage: (handler) => {
          receive = handler;
        },
      },
      {
        request,
        socket,
        signedIn: (signedInAs) => {
          holder = signedInAs;
          socketsOf.set(holder, (socketsOf.get(holder) ?? 0) + 1);
          door.signedIn();
          leave();
        },
      },
    );
    socket.once('close', (code, reason) => {
      leave();
      if (holder !== undefined) {
        const left = socketsOf.get(holder)! - 1;
        if (left) socketsOf.set(holder, left);
        else socketsOf.delete(holder);
      }
      void closed(code, String(reason));
    });
  });
  return () =>
    new Promise((resolve) => {
      stopKeepAlive();
      for (const socket of sockets.clients) socket.terminate();
      sockets.close(() => resolve());
    });
}
