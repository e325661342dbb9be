import { createApiKey } from '../src/auth/api-keys.js';
import { commandLine } from '../src/cli.js';
import type { Database } from '../src/db/index.js';
import { ApiKeyPermission } from '../src/generated/prisma/enums.js';
import { runOnDatabase } from './database-command.js';

const usage = `
usage: npm run api-key -- create --email <user> --name <label> [--permission READ_ONLY|READ_WRITE|ADMIN] [--expires <ISO date>]
       npm run api-key -- list --email <user>
       npm run api-key -- revoke --prefix <prefix shown by list>

Creates, lists and revokes API keys on DATABASE_URL, else on the embedded database under DATA_DIR
(through the running server when one holds it). create prints the new key's secret, shown this once;
its permission is READ_WRITE unless --permission says otherwise.
`;

const { positionals, values } = commandLine(usage, {
  allowPositionals: true,
  options: {
    email: { type: 'string' },
    name: { type: 'string' },
    permission: { type: 'string', default: 'READ_WRITE' },
    expires: { type: 'string' },
    prefix: { type: 'string' },
  },
});

function required(name: keyof typeof values): string {
  const value = values[name];
  if (!value) throw new Error(`--${name} is required`);
  return value;
}

async function run(database: Database): Promise<void> {
  const { prisma } = database;
  const command = positionals[0];
  if (command === 'create') {
    const user = await prisma.user.findUnique({ where: { email: required('email') } });
    if (!user) throw new Error(`no user with e-mail ${values.email}`);
    const permission = required('permission') as ApiKeyPermission;
    if (!(permission in ApiKeyPermission))
      throw new Error(`--permission must be one of ${Object.keys(ApiKeyPermission).join(', ')}`);
    const expiresAt = values.expires ? new Date(values.expires) : null;
    if (expiresAt && Number.isNaN(expiresAt.getTime())) throw new Error('--expires must be an ISO 8601 date');
    const key = await createApiKey(prisma, { userId: user.id, name: required('name'), permission, expiresAt });
    console.log(key.secret);
  } else if (command === 'list') {
    const keys = await prisma.apiKey.findMany({
      where: { user: { email: required('email') } },
      orderBy: { id: 'asc' },
    });
    for (const key of keys) {
      const state = key.revokedAt ? 'revoked' : key.expiresAt && key.expiresAt <= new Date() ? 'expired' : 'active';
      console.log(
        [key.prefix, key.name, key.permission, state, key.lastUsedAt?.toISOString() ?? 'never used'].join('\t'),
      );
    }
  } else if (command === 'revoke') {
    const { count } = await prisma.apiKey.updateMany({
      where: { prefix: required('prefix'), revokedAt: null },
      data: { revokedAt: new Date() },
    });
    console.log(`revoked ${count} key(s)`);
  } else {
    throw new Error(
      `expected create, list or revoke${command ? `, got "${command}"` : ''} (npm run api-key -- --help)`,
    );
  }
}

await runOnDatabase('api-key', run);
