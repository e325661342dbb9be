import { readFileSync } from 'node:fs';
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { createApp } from '../src/http/app.js';
import { compileRoute } from '../src/rest/compile.js';
import { compileRoutes } from '../src/rest/index.js';
import { openApiDocument } from '../src/rest/openapi.js';
import { fastApiOperationId } from '../src/rest/operation-ids.js';
import { groups, ownGroups, type Route } from '../src/rest/route.js';
import { schema } from '../src/schema/index.js';

// The contract itself, read where the project keeps it, so the table is checked against its words.
const legacy = readFileSync(new URL('../docs/legacy-v1-interface.md', import.meta.url), 'utf8');

/** "- group: Name (GET); Other Name (twice); ..." lines of the inventory, one entry per listed operation. */
function inventory(): { group: string; name: string; method?: string }[] {
  const section = legacy.slice(
    legacy.indexOf('### Inventory of other operations'),
    legacy.indexOf('Gaps:', legacy.indexOf('### Inventory of other operations')),
  );
  return [...section.matchAll(/^- ([a-z-]+): (.+)$/gm)].flatMap(([, group, list]) =>
    list
      .replace(/\.$/, '')
      .split('; ')
      .flatMap((entry) => {
        const [, name, note = ''] = /^(.+?)(?: \((.+)\))?$/.exec(entry)!;
        const method = /\b(GET|POST|PUT|DELETE)\b/.exec(note)?.[1];
        return Array.from({ length: note.includes('twice') ? 2 : 1 }, () => ({ group, name, method }));
      }),
  );
}

const compiled = compileRoutes(schema);
/** The legacy interface's routes: the gateway's own groups (webhooks) are no part of its contract. */
const legacyRoutes = compiled.filter((route) => !ownGroups.includes(route.group));
const key = (entry: { group: string; name: string }) => `${entry.group} / ${entry.name}`;
const count = (keys: string[]) =>
  keys.reduce((counts, k) => counts.set(k, (counts.get(k) ?? 0) + 1), new Map<string, number>());

describe('the route table', () => {
  it('has every operation of the inventory, as often as it is listed, with the method it shows', () => {
    const listed = inventory();
    expect(listed).toHaveLength(171);
    expect(new Set(listed.map((entry) => entry.group))).toEqual(
      new Set(groups.filter((group) => group !== 'upload' && !ownGroups.includes(group))),
    );
    const inTable = count(legacyRoutes.map(key));
    for (const [name, times] of count(listed.map(key))) expect(inTable.get(name), name).toBe(times);
    for (const entry of listed.filter((entry) => entry.method)) {
      expect(
        compiled.filter((route) => key(route) === key(entry)).map((route) => route.method),
        key(entry),
      ).toContain(entry.method);
    }
  });

  it('has beyond the inventory exactly the operations its body schemas imply (import, upload, and registration by RegisterUserInviteSchema), at their paths', () => {
    const implied = [...legacy.matchAll(/Body_(\w+?)(?=[,.\s])/g)].map((match) => match[1]);
    expect(implied).toHaveLength(3);
    expect(legacy).toContain('RegisterUserInviteSchema');
    const listed = count(inventory().map(key));
    const extra = legacyRoutes.filter((route) => !listed.has(key(route)));
    expect(extra.map(fastApiOperationId).sort()).toEqual(
      [...implied, 'register_user_invite_api_users_invite_v1_register__post'].sort(),
    );
  });

  it('serves each method and path once, at /api/<area>/v1/ paths with a trailing slash', () => {
    const seen = compiled.map((route) => `${route.method} ${route.path}`);
    expect(new Set(seen).size).toBe(seen.length);
    for (const route of compiled) expect(route.path).toMatch(/^\/api\/([a-z-]+\/)+v1\/([a-z-]+\/|\{[a-z_]+\}\/)*$/);
  });

  it('refuses at start-up a placeholder that goes nowhere', () => {
    const route: Route = {
      group: 'whiteboard',
      name: 'Lost',
      method: 'GET',
      path: '/api/whiteboard/v1/{lost_id}/',
      kind: 'object',
      operation: 'query Lost { me { rowId } }',
    };
    expect(() => compileRoute(route, schema)).toThrow(/placeholder \{lost_id\} goes nowhere/);
  });
});

describe('the OpenAPI document', () => {
  const document = openApiDocument(compiled) as {
    paths: Record<string, Record<string, { tags: string[]; summary: string; operationId: string }>>;
  };

  it('is valid OpenAPI 3.1', async () => {
    const result = await new Validator().validate(document as never);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('lists every route of the table under its legacy name and group, with unique operation ids', () => {
    for (const route of compiled) {
      const operation = document.paths[route.path]?.[route.method.toLowerCase()];
      expect(operation, `${route.method} ${route.path}`).toBeDefined();
      expect([operation.summary, operation.tags]).toEqual([route.name, [route.group]]);
    }
    const ids = Object.values(document.paths).flatMap((path) =>
      Object.values(path).map((operation) => operation.operationId),
    );
    expect(ids).toHaveLength(compiled.length);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe('the served document and docs page', () => {
  const app = createApp({ schema, config: loadConfig({}) });
  afterAll(() => app.close());

  it('serves the OpenAPI document at /api/openapi.json without a key', async () => {
    const response = await app.request('/api/openapi.json');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await response.json()).toMatchObject({ openapi: '3.1.0', paths: expect.any(Object) });
  });

  it('serves /docs with every asset it names from this server, none from elsewhere', async () => {
    const page = await app.request('/docs');
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).not.toMatch(/https?:\/\//);
    const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1]);
    expect(assets.length).toBeGreaterThanOrEqual(3);
    for (const asset of assets) {
      const response = await app.request(asset);
      expect(response.status, asset).toBe(200);
      expect((await response.arrayBuffer()).byteLength, asset).toBeGreaterThan(0);
    }
    // Swagger UI would otherwise send the document to its public validator.
    expect(await (await app.request('/docs/assets/init.js')).text()).toContain('validatorUrl: null');
  });
});
