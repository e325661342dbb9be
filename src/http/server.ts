import { createServer, type RequestListener, type Server } from 'node:http';
import type { Duplex } from 'node:stream';

/** What node's HTTP parser refuses before any route runs, answered in the legacy error form. */
const refusals: Record<string, [status: number, reason: string, detail: string]> = {
  HPE_HEADER_OVERFLOW: [
    431,
    'Request Header Fields Too Large',
    'Request header fields too large: the URL and headers may take 16 KB',
  ],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'Request Timeout', 'Request timeout: the request did not arrive in time'],
};
const malformed: [number, string, string] = [400, 'Bad Request', 'Bad request: the HTTP message could not be parsed'];

function refuse(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (!socket.writable) return void socket.destroy();
  const [status, reason, detail] = refusals[error.code ?? ''] ?? malformed;
  const body = JSON.stringify({ detail });
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/** The gateway's node:http server: a request the parser refuses still gets a body that says why. */
export function createGatewayServer(listener: RequestListener): Server {
  return createServer(listener).on('clientError', refuse);
}
