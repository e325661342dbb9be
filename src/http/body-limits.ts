import { GraphQLError } from 'graphql';
import type { FetchAPI, Plugin } from 'graphql-yoga';
import type { Config } from '../config.js';
import { isMultipart, uploadBodyBytes } from '../files/http.js';

const tooLarge = (limit: number) =>
  new GraphQLError(`Request body larger than ${limit} bytes`, {
    extensions: { code: 'PAYLOAD_TOO_LARGE', http: { status: 413 } },
  });

/** The request with its body counted as it streams, failing past `limit` bytes. */
function counted(fetchAPI: FetchAPI, request: Request, limit: number): Request {
  let bytes = 0;
  const limited = request.body!.pipeThrough(
    new fetchAPI.TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        bytes += chunk.byteLength;
        if (bytes > limit) controller.error(tooLarge(limit));
        else controller.enqueue(chunk);
      },
    }),
  );
  return new fetchAPI.Request(request.url, {
    method: request.method,
    headers: request.headers,
    signal: request.signal,
    body: limited,
    duplex: 'half',
  } as RequestInit);
}

/**
 * The body limit of `/graphql`, by the request's kind (an upload may be larger than an operation).
 * Node's HTTP parser delivers exactly `Content-Length` bytes and refuses a malformed one, so a body
 * that declares its length is judged by the header alone; only a chunked body, which declares none,
 * is counted as it streams. Yoga's own limit counts every body through a stream pipeline, which cost
 * about a tenth of a small request's CPU (BENCHMARKS.md), and is turned off in its favour.
 */
export function bodyLimits(config: Pick<Config, 'maxBodyBytes' | 'maxUploadBytes'>): Plugin {
  return {
    onRequestParse({ request, requestParser, setRequestParser, fetchAPI }) {
      const limit = isMultipart(request.headers.get('content-type') ?? undefined)
        ? uploadBodyBytes(config.maxUploadBytes)
        : config.maxBodyBytes;
      const length = request.headers.get('content-length');
      if (length !== null) {
        if (Number(length) > limit) throw tooLarge(limit);
        return;
      }
      if (requestParser && request.body) setRequestParser((parsed) => requestParser(counted(fetchAPI, parsed, limit)));
    },
  };
}
