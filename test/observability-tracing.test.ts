import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTracing } from '../src/observability/tracing.js';
import { startTestServer, type TestServer } from './helpers/server.js';

interface ReceivedSpan {
  name: string;
  kind: number;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  attributes: { key: string; value: { stringValue?: string; intValue?: number | string } }[];
}

// A real OTLP/HTTP receiver: the exporter POSTs JSON (ExportTraceServiceRequest) to /v1/traces.
const received: ReceivedSpan[] = [];
const paths: string[] = [];
let receiver: Server;
let server: TestServer;
let stopTracing: () => Promise<void>;

beforeAll(async () => {
  receiver = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      paths.push(`${request.headers['content-type']} ${request.url}`);
      const body = JSON.parse(Buffer.concat(chunks).toString());
      for (const resource of body.resourceSpans) for (const scope of resource.scopeSpans) received.push(...scope.spans);
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  // The exporter reads the standard variable, as it does in production.
  process.env.OTEL_EXPORTER_OTLP_ENDPOINT = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  // Before the database opens, as main.ts does.
  stopTracing = await startTracing('gateway-under-test');
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
  receiver?.close();
  // The worker's next files must not export to a receiver that is gone.
  delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
});

const attribute = (span: ReceivedSpan, key: string) => {
  const value = span.attributes.find((entry) => entry.key === key)?.value;
  return value?.stringValue ?? (value?.intValue === undefined ? undefined : String(value.intValue));
};

it('exports spans for the HTTP request, the GraphQL phases and each SQL statement, nested', async () => {
  const read = await server.graphql('query OneBoard { whiteboards(first: 1) { edges { node { rowId name } } } }');
  const { rowId } = read.data!.whiteboards.edges[0].node;
  const change = await server.graphql(
    'mutation Rename($rowId: Int!) { updateWhiteboard(input: { rowId: $rowId, name: "Traced" }) { whiteboard { name organization { name } } } }',
    { rowId },
  );
  expect(change.errors).toBeUndefined();
  // Flushes what is batched, as a shutdown does.
  await stopTracing();

  expect(paths[0]).toBe('application/json /v1/traces');
  const http = received.filter((span) => span.name === 'POST /graphql');
  expect(http).toHaveLength(2);
  const [readSpan, changeSpan] = http.sort((a, b) =>
    attribute(a, 'graphql.operation.name')! < attribute(b, 'graphql.operation.name')! ? -1 : 1,
  );
  expect(attribute(readSpan!, 'graphql.operation.name')).toBe('OneBoard');
  expect(readSpan!.kind).toBe(2); // SERVER
  expect(attribute(readSpan!, 'http.response.status_code')).toBe('200');

  const inTrace = (root: ReceivedSpan) => received.filter((span) => span.traceId === root.traceId);
  const childrenOf = (parent: ReceivedSpan, name: string) =>
    inTrace(parent).filter((span) => span.parentSpanId === parent.spanId && span.name === name);
  for (const root of [readSpan!, changeSpan!]) {
    for (const phase of ['graphql.parse', 'graphql.validate', 'graphql.execute'])
      expect(childrenOf(root, phase), phase).toHaveLength(1);
  }
  // The planned read: one statement of the gateway's own, under execute.
  const [readExecute] = childrenOf(readSpan!, 'graphql.execute');
  const [statement] = childrenOf(readExecute!, 'db.query');
  expect(attribute(statement!, 'db.query.text')).toMatch(/^SELECT/i);
  // The change is one statement of the gateway's own too (src/schema/row-update.ts); its answer, which
  // asks for a relation, is read through Prisma, whose instrumentation traces each statement under the request.
  const write = inTrace(changeSpan!).filter((span) => span.name === 'db.query');
  expect(write.map((span) => attribute(span, 'db.query.text'))).toEqual([expect.stringMatching(/\bUPDATE\b/)]);
  const prismaStatements = inTrace(changeSpan!).filter((span) => span.name === 'prisma:client:db_query');
  expect(prismaStatements.length).toBeGreaterThan(0);
  expect(prismaStatements.map((span) => attribute(span, 'db.query.text')).join('\n')).toMatch(/SELECT/);
});
