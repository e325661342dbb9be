import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditServer } from 'graphql-http';
import { startTestServer, type TestServer } from './helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server?.close());

describe('GraphQL over HTTP', () => {
  it('passes every MUST and SHOULD audit of graphql-http for an authenticated client', async () => {
    const results = await auditServer({
      url: `${server.url}/graphql`,
      fetchFn: (input: RequestInfo | URL, init?: RequestInit) =>
        fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), 'x-api-key': server.keys.viewer } }),
    });
    const failed = results
      .filter((result) => result.status !== 'ok' && (result.name.startsWith('MUST') || result.name.startsWith('SHOULD')))
      .map((result) => `${result.name}: ${'reason' in result ? result.reason : ''}`);
    expect(failed).toEqual([]);
    expect(results.length).toBeGreaterThan(20);
  });
});

describe('operation limits', () => {
  const code = (response: { errors?: { extensions?: Record<string, unknown> }[] }) => response.errors?.[0]?.extensions?.code;

  it('refuses an operation nested deeper than the limit, naming it', async () => {
    const deep = `{ whiteboards { edges { node { author { memberships { edges { node { organization { whiteboards { edges { node { dataStreams { edges { node { name } } } } } } } } } } } } } } }`;
    const response = await server.graphql(deep);
    expect(code(response)).toBe('OPERATION_TOO_COMPLEX');
    expect(response.errors![0].message).toMatch(/depth limit of 15/);
  });

  it('refuses an operation with too many aliases', async () => {
    const aliases = Array.from({ length: 31 }, (_, i) => `a${i}: __typename`).join(' ');
    const response = await server.graphql(`{ ${aliases} }`);
    expect(code(response)).toBe('OPERATION_TOO_COMPLEX');
    expect(response.errors![0].message).toMatch(/aliases/i);
  });

  it('refuses an operation whose estimated cost is above the limit', async () => {
    const fields = 'id rowId name description authorId organizationId inTheArchive createdAt updatedAt';
    const wide = `{ ${Array.from({ length: 12 }, (_, i) => `w${i}: whiteboards { edges { node { ${fields} author { email firstName lastName } organization { name } } } }`).join(' ')} }`;
    const response = await server.graphql(wide);
    expect(code(response)).toBe('OPERATION_TOO_COMPLEX');
    expect(response.errors![0].message).toMatch(/cost/i);
  });

  it('refuses a request body above the size limit with 413', async () => {
    const response = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': server.keys.viewer },
      body: JSON.stringify({ query: `{ __typename }`, variables: { padding: 'x'.repeat(1_100_000) } }),
    });
    expect(response.status).toBe(413);
  });
});
