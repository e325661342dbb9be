import type { Server } from 'node:http';
import type { DocumentNode, ExecutionArgs } from 'graphql';
import { CloseCode } from 'graphql-ws';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer } from 'ws';
import { authenticateRequest } from '../auth/credentials.js';
import type { Gateway } from './app.js';
import { allowsUpgrade } from './cors.js';
import { idRequired, notInList } from './trusted-documents.js';

const GRAPHQL_PATH = '/graphql';

type Enveloped = ReturnType<Gateway['yoga']['getEnveloped']>;

type Params = Readonly<Record<string, unknown>> | undefined;
type Headers = Record<string, string | string[] | undefined>;

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
const closeReason = (message: string) => Buffer.from(`Forbidden: ${message}`).subarray(0, 123).toString();

/**
 * Serves GraphQL over WebSocket (the graphql-transport-ws protocol of graphql-ws) on `server`'s
 * /graphql, through the same Yoga (envelop) pipeline and context factory as HTTP, so keys, limits
 * and subscriptions are the same. Answers a function that closes every socket.
 */
export function serveGraphQLOverWebSocket(
  server: Server,
  gateway: Pick<Gateway, 'yoga' | 'trustedDocuments' | 'corsOrigins' | 'tokens'>,
): () => Promise<void> {
  // Browsers send any page's Origin on a WebSocket and enforce nothing: the server applies CORS_ORIGINS itself.
  const sockets = new WebSocketServer({
    server,
    path: GRAPHQL_PATH,
    verifyClient: ({ req }, accept) =>
      allowsUpgrade(gateway.corsOrigins, req.headers) ? accept(true) : accept(false, 403, 'Origin not allowed'),
  });
  useServer(
    {
      onConnect: async (ctx) => {
        const { connectionParams: params } = ctx;
        const { headers } = ctx.extra.request;
        const { principal, refused } = await authenticateRequest(
          credentialValue(params, headers, 'X-API-KEY'),
          credentialValue(params, headers, 'Authorization'),
          gateway.tokens,
        );
        if (principal) return true;
        // graphql-ws would close with a bare "Forbidden"; closing first keeps this reason (ws ignores a second close).
        ctx.extra.socket.close(
          CloseCode.Forbidden,
          refused?.bearer
            ? closeReason(`${refused.reason}: the bearer token (Authorization in the connection parameters) is refused`)
            : 'Forbidden: the API key (X-API-KEY in the connection parameters) is missing, unknown, revoked or expired',
        );
        return false;
      },
      execute: (args) => (args.rootValue as Enveloped).execute(args),
      subscribe: (args) => (args.rootValue as Enveloped).subscribe(args),
      onSubscribe: async (ctx, _id, payload) => {
        const request = new Request(`http://localhost${GRAPHQL_PATH}`, {
          headers: credentialHeaders(ctx.connectionParams, ctx.extra.request.headers),
        });
        const enveloped = gateway.yoga.getEnveloped({ request, params: payload });
        let document: DocumentNode;
        if (gateway.trustedDocuments) {
          // As on HTTP: only a trusted document, by the id in the Apollo persisted-query form.
          const id = (payload.extensions?.persistedQuery as { sha256Hash?: unknown } | undefined)?.sha256Hash;
          if (payload.query || typeof id !== 'string') return [idRequired()];
          const trusted = gateway.trustedDocuments.get(id);
          if (!trusted) return [notInList(id)];
          document = trusted;
        } else {
          document = enveloped.parse(payload.query);
        }
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
      },
    },
    sockets,
  );
  return () =>
    new Promise((resolve) => {
      for (const socket of sockets.clients) socket.terminate();
      sockets.close(() => resolve());
    });
}
