import type { Plugin } from 'graphql-yoga';

/**
 * A subscription over HTTP whose client accepts no streaming answer (`Accept: text/html`, say) has
 * opened before Yoga finds it cannot answer it (406): its stream is closed then, rather than left
 * holding one of its key's subscriptions and the instance's listeners for good. Registered after
 * every plugin that may choose how a result is answered.
 */
export function useUnansweredStreams(): Plugin {
  return {
    onResultProcess({ result, resultProcessor }) {
      if (resultProcessor || !result || typeof result !== 'object' || !(Symbol.asyncIterator in result)) return;
      // graphql-js's subscription stream is its own iterator.
      void (result as Partial<AsyncIterator<unknown>>).return?.();
    },
  };
}
