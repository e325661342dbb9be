/**
 * The peer: PostGraphile 5 (amber preset, connection filter) over the bench database, served by
 * grafserv on node:http in production form (no GraphiQL, no explain, no watch). Started by the bench
 * on the Node 22 of bench/peer's node_modules: DATABASE_URL, DATABASE_POOL_SIZE, PORT, and for the
 * audited peer (bench/audited-peer.ts) BENCH_PEER_USER_ID, the user its audit trigger logs.
 * Plain JavaScript: PostGraphile needs Node 22, the bench's TypeScript loader runs on the gateway's Node.
 */
import { createServer } from 'node:http';
import pg from 'pg';
import { postgraphile } from 'postgraphile';
import { makePgService } from 'postgraphile/adaptors/pg';
import { grafserv } from 'postgraphile/grafserv/node';
import { PostGraphileAmberPreset } from 'postgraphile/presets/amber';
import { jsonPgSmartTags } from 'postgraphile/utils';
import { PostGraphileConnectionFilterPreset } from 'postgraphile-plugin-connection-filter';

// Our own pool, so that its size is the gateway's (DATABASE_POOL_SIZE) and we can close it.
const pool = new pg.Pool({
  connectionString: process.env.DATABASE_URL,
  max: Number(process.env.DATABASE_POOL_SIZE ?? 10),
});

// Two tables' type names would collide with the connection types of their neighbours
// (WhiteboardObject + Connection): the schema drops them unless they are renamed.
const renames = jsonPgSmartTags({
  version: 1,
  config: {
    class: {
      whiteboard_object_connection: { tags: { name: 'whiteboard_object_link' } },
      whiteboard_data_stream_connection: { tags: { name: 'whiteboard_data_stream_step' } },
    },
  },
});

// Per request, as a deployment that identifies its users sets their id for its triggers (the bench's
// requests carry no credential: the id is that of key 0's owner, whose requests the gateway's are).
const userId = process.env.BENCH_PEER_USER_ID;
const context = () => ({ pgSettings: { 'bench.user_id': userId } });

const preset = {
  extends: [PostGraphileAmberPreset, PostGraphileConnectionFilterPreset],
  plugins: [renames],
  pgServices: [makePgService({ pool, schemas: ['public'] })],
  // The tenancy filter of slides (case d) and classes (case e) goes through their parents' columns.
  schema: { connectionFilterRelations: true },
  grafserv: { graphqlPath: '/graphql', graphiql: false, graphiqlOnGraphQLGET: false, watch: false, websockets: false },
  grafast: { explain: false, ...(userId ? { context } : {}) },
};

const pgl = postgraphile(preset);
if (process.argv[2] === '--print-schema') {
  const { printSchema } = await import('postgraphile/graphql');
  console.log(printSchema((await pgl.getSchemaResult()).schema));
  await pgl.release();
  await pool.end();
  process.exit(0);
}
// Build the schema before answering /health, so that the bench's first request measures no start-up.
await pgl.getSchemaResult();

const handler = pgl.createServ(grafserv).createHandler();
const server = createServer((request, response) => {
  if (request.url !== '/health') return handler(request, response);
  response.writeHead(200, { 'content-type': 'application/json' });
  response.end('{"status":"ok"}');
});
server.listen(Number(process.env.PORT), '127.0.0.1');

async function stop() {
  server.close();
  server.closeAllConnections();
  await pgl.release();
  await pool.end();
  process.exit(0);
}
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
