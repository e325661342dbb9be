// How GraphiQL opens for someone who just ran `npm start`: the compiled server on an embedded data
// directory of its own, started again and again on the same directory, in order.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { sendGraphQL } from './helpers/graphql.js';
import { EXAMPLE_QUERY } from '../src/http/graphiql.js';
import { startServer, type ServerProcess } from './helpers/processes.js';

const dataDir = mkdtempSync(join(tmpdir(), 'gateway-graphiql-'));
const demoKey = 'wbg_graphiql_test_key';
let server: ServerProcess | undefined;

afterEach(async () => {
  server?.child.kill('SIGTERM');
  await server?.exit;
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/** Starts the server on the test's data directory and answers the options its GraphiQL page opens with. */
async function openGraphiQL(
  env: Record<string, string>,
): Promise<{ url: string; headers: Record<string, string>; defaultQuery: string; visiblePlugin: string }> {
  server = startServer({ DATA_DIR: dataDir, PORT: '0', ...env });
  const url = await server.url;
  const html = await (await fetch(`${url}/graphql`, { headers: { accept: 'text/html' } })).text();
  const options = JSON.parse(/renderYogaGraphiQL\([^,]+, (.*)\);<\/script>/.exec(html)![1]!);
  return { url, ...options, headers: JSON.parse(options.headers) };
}

describe('GraphiQL on the embedded demo data', () => {
  it('opens on first start with the demo key, the example query and the Explorer; the query reads boards', async () => {
    const page = await openGraphiQL({ DEMO_API_KEY: demoKey });
    expect(page.headers).toEqual({ 'X-API-KEY': demoKey });
    expect(page.defaultQuery).toBe(EXAMPLE_QUERY);
    expect(page.visiblePlugin).toBe('GraphiQL Explorer');
    const response = await sendGraphQL(page.url, EXAMPLE_QUERY, { key: page.headers['X-API-KEY'] });
    const { data, errors } = await response.json();
    expect(errors).toBeUndefined();
    expect(data.whiteboards.totalCount).toBeGreaterThan(0);
    expect(data.whiteboards.edges[0].node.dataStreams.edges.length).toBeGreaterThan(0);
  }, 60_000);

  it('opens with the demo key again after a restart, when DEMO_API_KEY is a key of the data', async () => {
    expect((await openGraphiQL({ DEMO_API_KEY: demoKey })).headers).toEqual({ 'X-API-KEY': demoKey });
  }, 60_000);

  it('never carries the key in production mode (NODE_ENV=production)', async () => {
    expect((await openGraphiQL({ DEMO_API_KEY: demoKey, NODE_ENV: 'production' })).headers).toEqual({
      'X-API-KEY': '<your API key>',
    });
  }, 60_000);

  it('says that a DEMO_API_KEY the data does not hold applies only on first load, and leaves it out of GraphiQL', async () => {
    const page = await openGraphiQL({ DEMO_API_KEY: 'wbg_not_the_first_key' });
    expect(page.headers).toEqual({ 'X-API-KEY': '<your API key>' });
    expect(server!.lines.out).toContain(
      `DEMO_API_KEY is not a key of ${dataDir}: it applies only when the demo data is first loaded (start on an empty DATA_DIR, or run npm run db:seed -- --reset).`,
    );
  }, 60_000);
});
