/**
 * The floor: what serving a case costs with nothing between HTTP and PostgreSQL. A bare node:http
 * server runs the case's one hand-written statement (queries.ts) on a pg Pool of the gateway's
 * size and writes the JSON text PostgreSQL built, untouched. Started by the bench as a child
 * process: DATABASE_URL, DATABASE_POOL_SIZE, PORT.
 */
import { createServer, type ServerResponse } from 'node:http';
import pg from 'pg';
import { floorRoutes } from './queries.js';

const pool = new pg.Pool({
  connectionString: process.env.DATABASE_URL,
  max: Number(process.env.DATABASE_POOL_SIZE ?? 10),
});
let statements = 0;

function send(response: ServerResponse, status: number, body: string, total?: string): void {
  const headers: Record<string, string | number> = {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
  };
  if (total !== undefined) headers['x-total-count'] = total;
  response.writeHead(status, headers);
  response.end(body);
}

const server = createServer(async (request, response) => {
  const url = new URL(request.url ?? '/', 'http://floor');
  if (url.pathname === '/health') return send(response, 200, '{"status":"ok"}');
  const route = floorRoutes[url.pathname];
  if (!route) return send(response, 404, '{"detail":"Not Found"}');
  try {
    statements++;
    // Parameters stay text; the statement casts them, as it would for any client.
    const { rows } = await pool.query<{ body: string; total?: string }>(
      route.sql,
      route.params.map((name) => url.searchParams.get(name) || null),
    );
    if (rows.length === 0) send(response, 404, '{"detail":"Not Found"}');
    else send(response, 200, rows[0].body, rows[0].total);
  } catch (error) {
    console.error(error);
    send(response, 500, '{"detail":"Internal Server Error"}');
  }
});

server.listen(Number(process.env.PORT), '127.0.0.1');

process.on('message', (message) => {
  if (message === 'statements') process.send?.({ statements });
});

async function stop(): Promise<void> {
  server.close();
  server.closeAllConnections();
  await pool.end();
  process.exit(0);
}
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
// The bench is gone: nobody will stop us otherwise.
process.on('disconnect', stop);
