// docs/configuration.md lists every setting the gateway reads, with its default, and nothing else:
// what loadConfig reads (src/settings.ts records each with its default), what src/ reads from
// process.env elsewhere, and npm start's own (the `${NAME:-default}`s of its script).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig, settingsRead } from '../src/config.js';

const root = new URL('..', import.meta.url).pathname;
const text = (path: string) => readFileSync(join(root, path), 'utf8');

/** Each documented variable, with its default as written (code quotes dropped). */
function documented(): Map<string, string> {
  const page = text('docs/configuration.md');
  const tables = page.slice(page.indexOf('<!-- settings'), page.indexOf('<!-- /settings -->'));
  return new Map(
    [...tables.matchAll(/^\| `([A-Z][A-Z0-9_]*)` \| ([^|]+) \|/gm)].map(([, name, value]) => [
      name,
      value.replaceAll('`', '').trim(),
    ]),
  );
}

function startScriptDefaults(): Map<string, string> {
  const start: string = JSON.parse(text('package.json')).scripts.start;
  return new Map([...start.matchAll(/\$\{([A-Z][A-Z0-9_]*):-([^}]*)\}/g)].map(([, name, value]) => [name, value]));
}

/** Variables src/ reads as `process.env.NAME` (or `process.env['NAME']`) outside the settings. */
function readFromProcessEnv(): Set<string> {
  const files = readdirSync(join(root, 'src'), { recursive: true, encoding: 'utf8' }).filter(
    (path) => path.endsWith('.ts') && !path.startsWith('generated'),
  );
  const reads = files.flatMap((path) => [
    ...text(join('src', path)).matchAll(/process\.env(?:\.([A-Z][A-Z0-9_]*)|\[['"]([A-Z][A-Z0-9_]*)['"]\])/g),
  ]);
  return new Set(reads.map(([, dotted, quoted]) => dotted ?? quoted));
}

describe('docs/configuration.md', () => {
  const rows = documented();
  const withDefaults = new Map([...settingsRead(), ...startScriptDefaults()]);

  it('finds the settings it checks', () => {
    expect(rows.size).toBeGreaterThan(40);
    expect(withDefaults.get('PORT')).toBe('4000');
    expect(withDefaults.get('MAX_HEAP_MB')).toBe('160');
    expect(readFromProcessEnv()).toContain('PGUSER');
  });

  it('lists every setting that is read, with the default the code applies', () => {
    const differing = [...withDefaults]
      .filter(([name, fallback]) => rows.get(name) !== fallback)
      .map(
        ([name, fallback]) =>
          `${name}: ${rows.has(name) ? `documented "${rows.get(name)}"` : 'not documented'}, read with "${fallback}"`,
      );
    expect(differing).toEqual([]);
    expect([...readFromProcessEnv()].filter((name) => !rows.has(name))).toEqual([]);
  });

  it('lists no setting that is no longer read', () => {
    const read = new Set([...withDefaults.keys(), ...readFromProcessEnv()]);
    expect([...rows.keys()].filter((name) => !read.has(name))).toEqual([]);
  });
});

// A load with nothing set reads every setting, so those of a feature that is off are read too.
describe('the settings of a feature that is off', () => {
  it('are refused when set, and read when it is on', () => {
    expect(loadConfig({})).toMatchObject({ oidc: undefined, rateLimit: undefined, metricsPort: undefined });
    expect(() => loadConfig({ OIDC_TIMEOUT_MS: '500' })).toThrow(
      'OIDC_TIMEOUT_MS is set but OIDC_ISSUER is not (bearer tokens are off without it)',
    );
    expect(() => loadConfig({ OIDC_ISSUER: 'https://id.example.com' })).toThrow('OIDC_AUDIENCE is not');
    expect(
      loadConfig({ OIDC_ISSUER: 'https://id.example.com', OIDC_AUDIENCE: 'api', OIDC_TIMEOUT_MS: '500' }).oidc,
    ).toEqual({
      issuers: ['https://id.example.com'],
      audience: 'api',
      createUsers: false,
      timeoutMs: 500,
      accessTokenTypes: ['at+jwt'],
    });
    expect(loadConfig({ RATE_LIMIT: '5', RATE_LIMIT_REDIS_URL: 'redis://cache:6379' }).rateLimit).toEqual({
      rate: 5,
      burst: 50,
      redisUrl: 'redis://cache:6379',
      redisPrefix: 'gateway:rate-limit:',
    });
    expect(loadConfig({ FILES_DIR: '/srv/files', METRICS_PORT: '9100' })).toMatchObject({
      fileStore: 'directory',
      filesDir: '/srv/files',
      metricsPort: 9100,
    });
  });
});
