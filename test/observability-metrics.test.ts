import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { sendGraphQL } from './helpers/graphql.js';
import { metricsListener, registry } from '../src/observability/metrics.js';
import { AUDIENCE, demoAccounts, TestProvider } from './helpers/oidc-provider.js';
import { rest } from './helpers/rest.js';
import { startInstance, startTestServer, type TestServer } from './helpers/server.js';

const token = 'scrape-7c41d9';
let server: TestServer;
beforeAll(async () => {
  // The registry is the process's: the worker's earlier files counted in it too.
  registry.resetMetrics();
  server = await startTestServer({ METRICS_TOKEN: token });
});
afterAll(() => server?.close());

const scrape = (url: string, authorization?: string) => fetch(url, { headers: authorization ? { authorization } : {} });

/** The value of one series, by its exact name and labels as Prometheus's text format writes them. */
function seriesValue(text: string, series: string): number | undefined {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

it('refuses a scrape without the token', async () => {
  expect((await scrape(`${server.url}/metrics`)).status).toBe(401);
  expect((await scrape(`${server.url}/metrics`, 'Bearer wrong')).status).toBe(401);
  expect((await scrape(`${server.url}/metrics`, token)).status).toBe(401);
});

it('counts requests of both doors, GraphQL phases, errors by code, statements, the pool and the process', async () => {
  const one = await server.graphql('query OneBoard { whiteboards(first: 1) { edges { node { name } } } }');
  expect(one.errors).toBeUndefined();
  await server.graphql('query OneBoard { whiteboards(first: 1) { edges { node { name } } } }');
  expect((await server.graphql('{ nope }')).status).toBe(400);
  expect((await server.graphql('{ whiteboard(rowId: 1) { name } }', {}, null)).status).toBe(401);
  expect((await rest(server, 'GET', '/api/whiteboard/v1/')).status).toBe(200);
  expect((await rest(server, 'DELETE', '/api/whiteboard/v1/999999/')).status).toBe(404);

  const response = await scrape(`${server.url}/metrics`, `Bearer ${token}`);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  const text = await response.text();

  expect(
    seriesValue(
      text,
      'http_request_duration_seconds_count{method="POST",route="/graphql",operation="OneBoard",status="200"}',
    ),
  ).toBe(2);
  expect(
    seriesValue(
      text,
      'http_request_duration_seconds_count{method="GET",route="/api/whiteboard/v1/",operation="WhiteboardList",status="200"}',
    ),
  ).toBe(1);
  expect(
    seriesValue(
      text,
      'http_request_duration_seconds_count{method="DELETE",route="/api/whiteboard/v1/:whiteboard_id/",operation="DeleteWhiteboard",status="404"}',
    ),
  ).toBe(1);
  expect(
    seriesValue(text, 'http_request_sql_statements_sum{route="/graphql",operation="OneBoard"}'),
  ).toBeGreaterThanOrEqual(2);
  for (const phase of ['parse', 'validate', 'context', 'execute']) {
    expect(seriesValue(text, `graphql_phase_duration_seconds_count{phase="${phase}"}`), phase).toBeGreaterThan(0);
  }
  expect(seriesValue(text, 'graphql_errors_total{code="GRAPHQL_VALIDATION_FAILED"}')).toBe(1);
  expect(seriesValue(text, 'graphql_errors_total{code="UNAUTHENTICATED"}')).toBe(1);
  expect(seriesValue(text, 'graphql_errors_total{code="NOT_FOUND"}')).toBe(1);
  expect(seriesValue(text, 'graphql_subscriptions_open')).toBe(0);
  expect(text).toMatch(/^nodejs_eventloop_lag_seconds \d/m);
  expect(text).toMatch(/^nodejs_heap_size_used_bytes \d/m);
  if (server.database.engine.kind === 'postgres') {
    expect(seriesValue(text, 'db_pool_connections{state="in_use"}')).toBeGreaterThanOrEqual(0);
    expect(seriesValue(text, 'db_pool_waiting_requests')).toBe(0);
  } else {
    // The embedded database is one in-process session, with no pool to report.
    expect(text).not.toMatch(/^db_pool_connections\{/m);
  }
});

it('serves /metrics on a port of its own instead of the main one when METRICS_PORT is set', async () => {
  const instance = await startInstance({ METRICS_PORT: '0' });
  const apart = createServer(metricsListener(undefined));
  await new Promise<void>((resolve) => apart.listen(0, '127.0.0.1', resolve));
  try {
    expect((await scrape(`${instance.url}/metrics`)).status).toBe(404);
    const response = await scrape(`http://127.0.0.1:${(apart.address() as AddressInfo).port}/metrics`);
    expect(response.status).toBe(200);
    expect(await response.text()).toMatch(/^# TYPE http_request_duration_seconds histogram$/m);
  } finally {
    apart.close();
    await instance.close();
  }
});

it('counts requests by credential kind, and refused credentials by reason', async () => {
  const provider = await TestProvider.start({ accounts: demoAccounts() });
  const instance = await startInstance({ METRICS_TOKEN: token, OIDC_ISSUER: provider.issuer, OIDC_AUDIENCE: AUDIENCE });
  try {
    const send = (headers: Record<string, string>) => sendGraphQL(instance.url, '{ me { rowId } }', { headers });
    const before = await (await scrape(`${instance.url}/metrics`, `Bearer ${token}`)).text();
    const count = (text: string, series: string) => seriesValue(text, series) ?? 0;
    expect((await send({ authorization: `Bearer ${await provider.signIn('owner')}` })).status).toBe(200);
    expect((await send({ 'x-api-key': server.keys.owner })).status).toBe(200);
    expect((await send({ authorization: 'Bearer not-a-token' })).status).toBe(401);
    const after = await (await scrape(`${instance.url}/metrics`, `Bearer ${token}`)).text();
    for (const [series, added] of [
      ['http_requests_by_credential_total{credential="BEARER_TOKEN"}', 1],
      ['http_requests_by_credential_total{credential="API_KEY"}', 1],
      ['auth_refusals_total{reason="MALFORMED_TOKEN"}', 1],
    ] as const)
      expect(count(after, series) - count(before, series), series).toBe(added);
  } finally {
    await instance.close();
    await provider.close();
  }
});
