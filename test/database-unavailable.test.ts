import { createServer, type AddressInfo } from 'node:net';
import { DriverAdapterError } from '@prisma/driver-adapter-utils';
import { GraphQLError } from 'graphql';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import {
  databaseTimeout,
  DatabaseUnavailableError,
  isDatabaseUnavailable,
  isReadOnlyRefusal,
} from '../src/db/unavailable.js';
import { PrismaClientKnownRequestError } from '../src/generated/prisma/internal/prismaNamespace.js';

// Which failures mean "the database cannot be reached now" (503), whichever layer reports them.

/** What pg rejects with when connecting to `port`. */
async function connectionError(port: number): Promise<unknown> {
  const client = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', connectionTimeoutMillis: 2_000 });
  client.on('error', () => {});
  return client.connect().then(
    () => client.end().then(() => expect.fail('connected')),
    (error: unknown) => error,
  );
}

/** A port that accepts connections and closes each at once, as a server going down does. */
async function closingServer<T>(use: (port: number) => Promise<T>): Promise<T> {
  const server = createServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    return await use((server.address() as AddressInfo).port);
  } finally {
    server.close();
  }
}

async function unusedPort(): Promise<number> {
  return closingServer(async (port) => port);
}

function databaseError(code: string, message: string): pg.DatabaseError {
  return Object.assign(new pg.DatabaseError(message, message.length, 'error'), { code, severity: 'FATAL' });
}

const prismaError = (code: string, meta?: Record<string, unknown>) =>
  new PrismaClientKnownRequestError('failed', { code, clientVersion: '7', meta });

describe('isDatabaseUnavailable', () => {
  it('recognizes what pg reports for a refused, reset or lost connection and for a server shutting down', async () => {
    const refused = await connectionError(await unusedPort());
    expect(refused).toMatchObject({ code: 'ECONNREFUSED' });
    const terminated = await closingServer((port) => connectionError(port));
    expect(String((terminated as Error).message)).toMatch(/^Connection terminated/);
    for (const error of [
      refused,
      terminated,
      new AggregateError([refused], 'connect failed'),
      databaseError('57P01', 'terminating connection due to administrator command'),
      databaseError('57P03', 'the database system is starting up'),
      databaseError('08006', 'connection failure'),
      databaseError('53300', 'sorry, too many clients already'),
    ]) {
      expect([String(error), isDatabaseUnavailable(error)]).toEqual([String(error), true]);
    }
  });

  it('recognizes Prisma errors, and the driver adapter errors they wrap', () => {
    const unreachable = new DriverAdapterError({ kind: 'DatabaseNotReachable', host: '127.0.0.1', port: 5432 });
    const closed = new DriverAdapterError({ kind: 'ConnectionClosed' });
    const shutdown = new DriverAdapterError({
      kind: 'postgres',
      code: '57P01',
      severity: 'FATAL',
      message: 'terminating connection',
      detail: undefined,
      column: undefined,
      hint: undefined,
    });
    for (const error of [
      prismaError('P1001'),
      prismaError('P1017'),
      prismaError('P2010', { driverAdapterError: unreachable }),
      prismaError('P2010', { driverAdapterError: shutdown }),
      closed,
    ]) {
      expect([error.message, isDatabaseUnavailable(error)]).toEqual([error.message, true]);
    }
  });

  it('looks through a GraphQL error to its original, and through causes', () => {
    const located = new GraphQLError('failed', { originalError: prismaError('P1001') });
    expect(isDatabaseUnavailable(located)).toBe(true);
    expect(isDatabaseUnavailable(new Error('outer', { cause: new Error('Connection terminated unexpectedly') }))).toBe(
      true,
    );
    expect(isDatabaseUnavailable(new Error('PGlite is closed'))).toBe(true);
  });

  it('leaves refused values, constraint violations and bugs alone', () => {
    const cyclic: Error & { cause?: unknown } = new Error('cycle');
    cyclic.cause = cyclic;
    const badValue = new DriverAdapterError({
      kind: 'postgres',
      code: '22021',
      severity: 'ERROR',
      message: 'invalid byte sequence',
      detail: undefined,
      column: undefined,
      hint: undefined,
    });
    for (const error of [
      databaseError('22021', 'invalid byte sequence for encoding "UTF8": 0x00'),
      databaseError('23505', 'duplicate key value violates unique constraint'),
      prismaError('P2002'),
      prismaError('P2039', { driverAdapterError: badValue }),
      new TypeError("Cannot read properties of undefined (reading 'id')"),
      new GraphQLError('Whiteboard not found', { extensions: { code: 'NOT_FOUND' } }),
      cyclic,
      undefined,
      'ECONNREFUSED',
    ]) {
      expect([String(error), isDatabaseUnavailable(error)]).toEqual([String(error), false]);
    }
  });

  it("recognizes the waits that ran out: a pooled connection, a new one, a transaction that found none, the gateway's own bound", () => {
    for (const error of [
      new Error('timeout exceeded when trying to connect'),
      new Error('Connection terminated due to connection timeout'),
      new Error('timeout expired'),
      new PrismaClientKnownRequestError('Transaction API error: Unable to start a transaction in the given time.', {
        code: 'P2028',
        clientVersion: '7',
      }),
      new DatabaseUnavailableError('127.0.0.1:5432: no answer within 31000 ms'),
      new Error('Client was closed and is not queryable'),
    ]) {
      expect([String(error), isDatabaseUnavailable(error)]).toEqual([String(error), true]);
    }
  });

  it('takes a write refused as read-only (a demoted primary) as unavailable, and tells it apart', () => {
    const readOnly = databaseError('25006', 'cannot execute INSERT in a read-only transaction');
    expect(isDatabaseUnavailable(readOnly)).toBe(true);
    expect(isReadOnlyRefusal(prismaError('P2010', { driverAdapterError: { cause: { code: '25006' } } }))).toBe(true);
    expect(isReadOnlyRefusal(databaseError('57P01', 'terminating connection'))).toBe(false);
  });
});

describe('databaseTimeout', () => {
  it("names the bound a statement ran past: its own time, a lock, or an interactive transaction's", () => {
    const adapterError = (code: string, message: string) =>
      new DriverAdapterError({
        kind: 'postgres',
        code,
        severity: 'ERROR',
        message,
        detail: undefined,
        column: undefined,
        hint: undefined,
      });
    expect(databaseTimeout(databaseError('57014', 'canceling statement due to statement timeout'))).toBe('statement');
    expect(
      databaseTimeout(
        prismaError('P2010', { driverAdapterError: adapterError('55P03', 'canceling statement due to lock timeout') }),
      ),
    ).toBe('lock');
    expect(
      databaseTimeout(
        new GraphQLError('failed', { originalError: adapterError('57014', 'canceling statement due to user request') }),
      ),
    ).toBe('statement');
    expect(
      databaseTimeout(
        new PrismaClientKnownRequestError(
          'Transaction API error: Transaction already closed: A query cannot be executed on an expired transaction.',
          {
            code: 'P2028',
            clientVersion: '7',
          },
        ),
      ),
    ).toBe('statement');
    for (const error of [databaseError('23505', 'duplicate key'), new Error('timeout expired'), undefined])
      expect(databaseTimeout(error)).toBeUndefined();
  });
});
