import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { describeUrl, parseConnectionString, redacted } from '../src/db/connection-string.js';

// libpq's connection URLs with several hosts, which node-postgres does not read, and the settings
// that bound every wait on PostgreSQL.

describe('parseConnectionString', () => {
  it('reads every host of a multi-host URL in order, with its port or 5432, and the session attributes asked for', () => {
    const url =
      'postgresql://app:secret@db-1:5433,db-2,[::1]:6000/boards?target_session_attrs=read-write&sslmode=disable';
    const parsed = parseConnectionString(url);
    expect(parsed.servers).toEqual([
      { host: 'db-1', port: 5433 },
      { host: 'db-2', port: 5432 },
      { host: '::1', port: 6000 },
    ]);
    expect(parsed).toMatchObject({ target: 'read-write', database: 'boards', user: 'app' });
    expect(parsed.description).toBe('db-1:5433,db-2:5432,[::1]:6000/boards');
    // Each server's own URL, as node-postgres takes it: the same role, database and parameters, without the attributes.
    expect(parsed.urlOf(parsed.servers[1])).toBe('postgresql://app:secret@db-2:5432/boards?sslmode=disable');
    expect(parsed.urlOf(parsed.servers[2])).toBe('postgresql://app:secret@[::1]:6000/boards?sslmode=disable');
  });

  it('reads a plain URL as one server that takes any session, and a socket named in the parameters', () => {
    expect(parseConnectionString('postgres://localhost/gateway')).toMatchObject({
      servers: [{ host: 'localhost', port: 5432 }],
      target: 'any',
    });
    // The parameter wins over the authority, as in libpq: the embedded database's socket, not a server on localhost.
    const socket = parseConnectionString('postgresql://postgres@localhost/postgres?host=%2Fsrv%2Fdata');
    expect(socket.servers).toEqual([{ host: '/srv/data', port: 5432 }]);
    expect(socket.urlOf(socket.servers[0])).toBe('postgresql://postgres@localhost/postgres?host=%2Fsrv%2Fdata');
    const parameters = parseConnectionString('postgresql:///postgres?host=%2Fsrv%2Fdata');
    expect(parameters.servers).toEqual([{ host: '/srv/data', port: 5432 }]);
    expect(parameters.urlOf(parameters.servers[0])).toBe('postgresql:///postgres?host=%2Fsrv%2Fdata');
    expect(describeUrl('postgresql://u@127.0.0.1:6432/x')).toBe('127.0.0.1:6432/x');
  });

  it('takes every target_session_attrs libpq knows, and names what is wrong otherwise, never the password', () => {
    for (const target of ['any', 'read-write', 'read-only', 'primary', 'standby', 'prefer-standby'])
      expect(parseConnectionString(`postgresql://h1,h2/db?target_session_attrs=${target}`).target).toBe(target);
    expect(() => parseConnectionString('postgresql://h1,h2/db?target_session_attrs=master')).toThrow(
      'target_session_attrs must be one of any, read-write, read-only, primary, standby, prefer-standby, got "master"',
    );
    expect(() => parseConnectionString('postgresql://u:hunter2@h1:99999/db')).toThrow(
      'port "99999" is out of range in postgresql://u:***@h1:99999/db',
    );
    expect(() => parseConnectionString('mysql://h/db')).toThrow('mysql://h/db is not a postgresql:// URL');
    expect(redacted('postgresql://u:hunter2@h/db')).toBe('postgresql://u:***@h/db');
  });
});

describe('the database settings', () => {
  it('bound a connection 5 s, a statement 30 s and a lock 5 s by default, each settable, a lock never past a statement', () => {
    expect(loadConfig({}).databaseBounds).toEqual({
      connectTimeoutMs: 5000,
      statementTimeoutMs: 30000,
      lockTimeoutMs: 5000,
    });
    expect(
      loadConfig({
        DATABASE_CONNECT_TIMEOUT_MS: '1000',
        DATABASE_STATEMENT_TIMEOUT_MS: '2000',
        DATABASE_LOCK_TIMEOUT_MS: '500',
      }).databaseBounds,
    ).toEqual({ connectTimeoutMs: 1000, statementTimeoutMs: 2000, lockTimeoutMs: 500 });
    expect(() => loadConfig({ DATABASE_STATEMENT_TIMEOUT_MS: '50' })).toThrow(
      'DATABASE_STATEMENT_TIMEOUT_MS must be an integer of at least 100, got "50"',
    );
    expect(() => loadConfig({ DATABASE_LOCK_TIMEOUT_MS: '40000' })).toThrow(
      'DATABASE_LOCK_TIMEOUT_MS (40000) must not exceed DATABASE_STATEMENT_TIMEOUT_MS (30000)',
    );
  });

  it('split DATABASE_REPLICA_URLS at the commas between URLs, not those between the hosts of one', () => {
    const replicas = loadConfig({
      DATABASE_URL: 'postgresql://db-1,db-2/gateway?target_session_attrs=read-write',
      DATABASE_REPLICA_URLS: 'postgresql://db-2,db-1/gateway?target_session_attrs=standby, postgresql://db-3/gateway',
    }).replicaUrls;
    expect(replicas).toEqual([
      'postgresql://db-2,db-1/gateway?target_session_attrs=standby',
      'postgresql://db-3/gateway',
    ]);
  });
});

describe('a URL in a message', () => {
  const secrets = ['pa/Qx7', 'pa?Qx7', 'pa#Qx7', 'p@Qx7', 'hunter2'];

  it('never shows a password, whatever it holds unencoded, nor a password parameter', () => {
    for (const secret of secrets) {
      const shown = redacted(`postgresql://u:${secret}@h:5432/db?sslmode=require`);
      expect(shown).toBe('postgresql://u:***@h:5432/db?sslmode=require');
    }
    expect(redacted('postgresql://u@h/db?password=hunter2&sslpassword=also&application_name=a@b')).toBe(
      'postgresql://u@h/db?password=***&sslpassword=***&application_name=a@b',
    );
    expect(redacted('postgresql://h/db')).toBe('postgresql://h/db');
  });

  it('refuses a password that holds / ? # or @ unencoded, saying how to write it, without showing it', () => {
    for (const secret of ['pa/Qx7', 'pa?Qx7', 'pa#Qx7', '12/Qx7', 'p@Qx7/z']) {
      const url = `postgresql://u:${secret}@h:5432/db`;
      let message = '';
      try {
        parseConnectionString(url);
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message, secret).toMatch(/percent-encoded|is not a postgresql:\/\/ URL/);
      for (const part of ['pa', '12', 'Qx7']) expect(message, secret).not.toContain(`:${part}`);
      expect(message, secret).not.toContain('Qx7');
    }
    // Encoded, it is read.
    expect(parseConnectionString('postgresql://u:pa%2Fss@h:5432/db').servers).toEqual([{ host: 'h', port: 5432 }]);
  });

  it('is never echoed by a setting that is not one', () => {
    expect(() =>
      loadConfig({ DATABASE_URL: 'postgresql://h/db', DATABASE_REPLICA_URLS: 'postgre://u:hunter2@h/db' }),
    ).toThrow('DATABASE_REPLICA_URLS must be a postgresql:// URL, got "postgre://u:***@h/db"');
  });
});
