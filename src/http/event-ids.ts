import type { FetchAPI, Plugin } from 'graphql-yoga';
import type { Context } from '../schema/context.js';

// A result's cursor, the last member of its extensions, at the very end of the serialized result:
// data cannot end there, whatever a client names its fields.
const cursorAtEnd = /"cursor":"([A-Za-z0-9_-]+)"\}\}$/;
const dataLine = new TextEncoder().encode('data: ');

const startsWithData = (chunk: Uint8Array) => dataLine.every((byte, i) => chunk[i] === byte);

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
      // Yoga writes an event's `data:` line as one chunk of its own (its SSE result processor).
      const cursor = startsWithData(value) && cursorAtEnd.exec(decoder.decode(value).trimEnd())?.[1];
      if (cursor) controller.enqueue(encoder.encode(`id: ${cursor}\n`));
      controller.enqueue(value);
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
