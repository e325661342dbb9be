import { prisma, type Prisma } from '../db/index.js';
import { ofEmail } from '../db/patterns.js';
import type { Role } from '../generated/prisma/enums.js';
import { refusal, type Refusal } from './refusals.js';
import type { VerifiedToken } from './token-verifier.js';

const withMemberships = { memberships: { select: { organizationId: true, role: true } } } as const;

/**
 * Links the token's identity to a user: the user of its verified e-mail, else a new user when
 * `createUsers` allows (no memberships: an invite or an owner gives those). An identity already
 * linked, by a concurrent first sign-in, wins.
 */
async function firstSignIn(token: VerifiedToken, createUsers: boolean): Promise<Refusal | undefined> {
  if (!token.verifiedEmail) return refusal('UNLINKED_IDENTITY');
  const email = token.verifiedEmail;
  const existing = await prisma().user.findFirst({ where: ofEmail(email), select: { id: true } });
  if (!existing && !createUsers) return refusal('UNKNOWN_USER');
  return prisma().$transaction(async (tx) => {
    if (!existing) {
      const name = { firstName: token.givenName ?? email.split('@')[0], lastName: token.familyName ?? '' };
      // A concurrent first sign-in may have made the user: then this one links to it.
      await tx.user.createMany({ data: [{ email, ...name }], skipDuplicates: true });
    }
    const user = existing ?? (await tx.user.findFirstOrThrow({ where: ofEmail(email), select: { id: true } }));
    await tx.userIdentity.createMany({
      data: [{ issuer: token.issuer, subject: token.subject, email, userId: user.id }],
      skipDuplicates: true,
    });
    return undefined;
  });
}

/**
 * The user a verified token signs in, with memberships, or why it may not: its identity
 * (issuer and subject) names the user; a first sign-in links one (firstSignIn). A revoked identity
 * or a deactivated user is refused.
 */
export async function userOfToken(token: VerifiedToken, createUsers: boolean) {
  const where = { issuer_subject: { issuer: token.issuer, subject: token.subject } };
  let identity = await prisma().userIdentity.findUnique({ where, include: { user: { include: withMemberships } } });
  if (!identity) {
    const refused = await firstSignIn(token, createUsers);
    if (refused) return refused;
    identity = await prisma().userIdentity.findUniqueOrThrow({
      where,
      include: { user: { include: withMemberships } },
    });
  }
  if (identity.revokedAt) return refusal('IDENTITY_REVOKED');
  if (!identity.user.isActive) return refusal('USER_INACTIVE');
  return { identityId: identity.id, user: identity.user };
}

type Db = Pick<Prisma, 'user' | 'userIdentity' | 'userOrganization' | '$transaction'>;

/**
 * A service user of one organization, with the role it acts in, signed in by a machine client's
 * client-credentials tokens (their subject, usually the client id): no person, no e-mail of its own
 * (a name under `.invalid`, which no mail reaches), active in that organization.
 */
export async function createServiceUser(
  db: Db,
  service: { name: string; organizationId: number; role: Role; issuer: string; subject: string },
) {
  const slug =
    service.name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '') || 'service';
  return db.$transaction(async (tx) => {
    const user = await tx.user.create({
      data: {
        email: `${slug}.${service.organizationId}@services.invalid`,
        firstName: service.name,
        lastName: '(service)',
        activeOrganizationId: service.organizationId,
        memberships: { create: { organizationId: service.organizationId, role: service.role } },
      },
    });
    await tx.userIdentity.create({ data: { userId: user.id, issuer: service.issuer, subject: service.subject } });
    return user;
  });
}
