import { createServiceUser } from '../src/auth/identities.js';
import { commandLine } from '../src/cli.js';
import { issuerUrl } from '../src/config.js';
import type { Database } from '../src/db/index.js';
import { Role } from '../src/generated/prisma/enums.js';
import { runOnDatabase } from './database-command.js';

const usage = `
usage: npm run identity -- link --email <user> --issuer <url> --subject <sub>
       npm run identity -- service --name <label> --organization <id> [--role OWNER|ADMIN|MEMBER|VIEWER] --issuer <url> --subject <sub>
       npm run identity -- list --email <user>
       npm run identity -- revoke --issuer <url> --subject <sub>

Links accounts of an OpenID Connect issuer (OIDC_ISSUER) to users of the gateway, on DATABASE_URL,
else on the embedded database under DATA_DIR (through the running server when one holds it).
link: the issuer's subject signs in as an existing user (for tokens that carry no verified e-mail).
service: a new service user, a member of one organization with --role (MEMBER unless said), signed in
by a machine client's client-credentials tokens (--subject: their sub, often the client id).
revoke: the identity's tokens are refused from the next request on, on every instance.
`;

const { positionals, values } = commandLine(usage, {
  allowPositionals: true,
  options: {
    email: { type: 'string' },
    issuer: { type: 'string' },
    subject: { type: 'string' },
    name: { type: 'string' },
    organization: { type: 'string' },
    role: { type: 'string', default: 'MEMBER' },
  },
});

function required(name: keyof typeof values): string {
  const value = values[name];
  if (!value) throw new Error(`--${name} is required`);
  return value;
}

const identity = () => ({ issuer: issuerUrl('--issuer', required('issuer')), subject: required('subject') });

async function run({ prisma }: Database): Promise<void> {
  const command = positionals[0];
  if (command === 'link') {
    const user = await prisma.user.findUnique({ where: { email: required('email') } });
    if (!user) throw new Error(`no user with e-mail ${values.email}`);
    await prisma.userIdentity.create({ data: { userId: user.id, ...identity() } });
    console.log(`linked to ${user.email}`);
  } else if (command === 'service') {
    const role = required('role') as Role;
    if (!(role in Role)) throw new Error(`--role must be one of ${Object.keys(Role).join(', ')}`);
    const organizationId = Number(required('organization'));
    if (!(await prisma.organization.findUnique({ where: { id: organizationId } })))
      throw new Error(`no organization ${values.organization}`);
    const user = await createServiceUser(prisma, { name: required('name'), organizationId, role, ...identity() });
    console.log(`service user ${user.email} (id ${user.id})`);
  } else if (command === 'list') {
    const identities = await prisma.userIdentity.findMany({
      where: { user: { email: required('email') } },
      orderBy: { id: 'asc' },
    });
    for (const row of identities) {
      const used = row.lastUsedAt?.toISOString() ?? 'never used';
      console.log([row.issuer, row.subject, row.revokedAt ? 'revoked' : 'active', used].join('\t'));
    }
  } else if (command === 'revoke') {
    const { count } = await prisma.userIdentity.updateMany({
      where: { ...identity(), revokedAt: null },
      data: { revokedAt: new Date() },
    });
    console.log(`revoked ${count} identit${count === 1 ? 'y' : 'ies'}`);
  } else {
    throw new Error(
      `expected link, service, list or revoke${command ? `, got "${command}"` : ''} (npm run identity -- --help)`,
    );
  }
}

await runOnDatabase('identity', run);
