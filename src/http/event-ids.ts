import type { FetchAPI, Plugin } from 'graphql-yoga';
import type { Context } from '../schema/context.js';

// A `data:` line whose result names its cursor, the last member of its extensions, at the very end
// of the line: data cannot end there, whatever a client names its fields.
const dataWithCursor = /^data: .*"cursor":"([A-Za-z0-9_-]+)"\}\}$/gm;

/**
 * An SSE body with an `id:` line before each event whose result names its cursor. Pulled from the
 * body as the client reads, and cancelling it when the client goes, as Yoga's own body does.
 */
function withEventIds(body: ReadableStream<Uint8Array>, fetchAPI: FetchAPI): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  return new fetchAPI.ReadableStream({
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done) return controller.close();
      // Yoga writes whole lines (its SSE result processor); a chunk may hold several.
      const text = decoder.decode(value);
      if (!text.includes('data: ')) return controller.enqueue(value);
      controller.enqueue(encoder.encode(text.replace(dataWithCursor, (line, cursor) => `id: ${cursor}\n${line}`)));
    },
    cancel: (reason) => reader.cancel(reason),
  });
}

/**
 * Each subscription event's cursor, where a client resumes from: in its result's
 * `extensions.cursor` (SSE and WebSocket), and as the SSE event's `id:`, which an EventSource sends
 * back as `Last-Event-ID` when it reconnects.
 */
export function useEventIds(): Plugin<Context> {
  return {
    onSubscribe({ args }) {
      const ctx = args.contextValue as Context;
      return {
        onSubscribeResult: () => ({
          onNext({ result, setResult }) {
            const cursor = ctx.lastEventCursor;
            if (!cursor) return;
            ctx.lastEventCursor = undefined;
            setResult({ ...result, extensions: { ...result.extensions, cursor } });
          },
        }),
      };
    },
    onResponse({ response, setResponse, fetchAPI }) {
      if (!response.body || !response.headers.get('content-type')?.startsWith('text/event-stream')) return;
      // The server's own stream and response types, whose cancel it calls when the client goes.
      setResponse(new fetchAPI.Response(withEventIds(response.body, fetchAPI), response));
    },
  };
}
