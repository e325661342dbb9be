// oidc-provider ships no types and @types/oidc-provider (with Koa's) is not a dependency: the part of its API the tests use.
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  interface InteractionDetails {
    uid: string;
    params: Record<string, unknown>;
    prompt: { name: string };
  }

  class Grant {
    constructor(options: { accountId: string; clientId: string });
    addOIDCScope(scope: string): void;
    addResourceScope(resource: string, scope: string): void;
    save(): Promise<string>;
  }

  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>);
    proxy: boolean;
    readonly Grant: typeof Grant;
    callback(): (request: IncomingMessage, response: ServerResponse) => void;
    interactionDetails(request: IncomingMessage, response: ServerResponse): Promise<InteractionDetails>;
    interactionFinished(
      request: IncomingMessage,
      response: ServerResponse,
      result: Record<string, unknown>,
      options?: { mergeWithLastSubmission?: boolean },
    ): Promise<void>;
  }
}
