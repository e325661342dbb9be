import { expect } from 'vitest';
import { createApiKey } from '../../src/auth/api-keys.js';
import type { ApiKeyPermission } from '../../src/generated/prisma/enums.js';
import { countRows } from '../../src/db/seed/index.js';
import type { TestServer } from './server.js';
import type { GraphQLResponse } from './graphql.js';

/** The code and field of a response's first error, for one-line assertions. */
export function failure(response: GraphQLResponse): { code: unknown; field?: unknown } {
  const extensions = response.errors?.[0]?.extensions ?? {};
  return extensions.field === undefined
    ? { code: extensions.code }
    : { code: extensions.code, field: extensions.field };
}

/** Runs a refused operation and checks that no table gained or lost a row and no row of `watched` changed. */
export async function expectNothingChanged(
  server: TestServer,
  work: () => Promise<GraphQLResponse>,
  watched: () => Promise<unknown> = async () => null,
) {
  const rowsBefore = await countRows(server.database.prisma);
  const watchedBefore = await watched();
  const response = await work();
  expect(response.errors, 'the operation should have been refused').toBeDefined();
  expect(await countRows(server.database.prisma)).toEqual(rowsBefore);
  expect(await watched()).toEqual(watchedBefore);
  return response;
}

/** A key with the given permission for a demo user, to reach the role matrix past the key's own limit. */
export async function keyFor(server: TestServer, email: string, permission: ApiKeyPermission): Promise<string> {
  const user = await server.database.prisma.user.findUniqueOrThrow({ where: { email } });
  return (await createApiKey(server.database.prisma, { userId: user.id, name: `test ${permission}`, permission }))
    .secret;
}

/** Sends the operation of `send` with each of `keys`: each refused FORBIDDEN, changing nothing (expectNothingChanged). */
export async function expectForbiddenToEach(
  server: TestServer,
  keys: string[],
  send: (key: string) => Promise<GraphQLResponse>,
  watched?: () => Promise<unknown>,
) {
  for (const key of keys) {
    const response = await expectNothingChanged(server, () => send(key), watched);
    expect(failure(response).code).toBe('FORBIDDEN');
  }
}
