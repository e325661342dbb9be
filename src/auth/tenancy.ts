import type PrismaTypes from '../generated/pothos-types.js';
import type { Principal } from './principal.js';

export type ModelName = keyof PrismaTypes & string;

type OrganizationIds = { in: number[] };
type Scope = (organizations: OrganizationIds, principal: Principal) => Record<string, unknown>;

const viaBoard = (organizations: OrganizationIds) => ({ whiteboard: { organizationId: organizations } });
const viaObject = (organizations: OrganizationIds) => ({ object: viaBoard(organizations) });
const viaStream = (organizations: OrganizationIds) => ({ dataStream: viaBoard(organizations) });
const viaLibrary = (organizations: OrganizationIds) => ({ library: { organizationId: organizations } });

/** How each model reaches the organization it belongs to: every row belongs to one, directly or through its parent. */
const scopes: Record<ModelName, Scope | null> = {
  Rate: null,
  Organization: (organizations) => ({ id: organizations }),
  User: (organizations, principal) => ({ OR: [{ id: principal.userId }, { memberships: { some: { organizationId: organizations } } }] }),
  UserOrganization: (organizations) => ({ organizationId: organizations }),
  UserInvite: (organizations) => ({ organizationId: organizations }),
  ApiKey: (_organizations, principal) => ({ userId: principal.userId }),
  UserActionLog: (organizations) => ({ organizationId: organizations }),
  File: (organizations) => ({ organizationId: organizations }),
  Whiteboard: (organizations) => ({ organizationId: organizations }),
  DataStream: viaBoard,
  DataStreamConnection: viaStream,
  Slide: viaStream,
  WhiteboardObject: viaBoard,
  WhiteboardObjectInstance: viaObject,
  WhiteboardObjectAttribute: viaObject,
  WhiteboardObjectConnection: viaBoard,
  WhiteboardObjectRelation: (organizations) => ({ parentObject: viaBoard(organizations) }),
  WhiteboardHighlightGroup: viaBoard,
  WhiteboardHighlight: viaBoard,
  ObjectRepositoryEntry: (organizations) => ({ organizationId: organizations }),
  Library: (organizations) => ({ organizationId: organizations }),
  ClassConf: viaLibrary,
  ClassConfAttribute: (organizations) => ({ classConf: viaLibrary(organizations) }),
  ClassTexture: viaLibrary,
};

/** The organizations whose rows the caller may see; undefined for a platform admin, who sees all. */
export function visibleOrganizations(principal: Principal): number[] | undefined {
  return principal.isAdmin ? undefined : [...principal.roles.keys()];
}

/** A Prisma `where` limiting a model to the caller's organizations (empty for a platform admin). */
export function tenancyWhere(model: ModelName, principal: Principal): Record<string, unknown> {
  const scope = scopes[model];
  const organizations = visibleOrganizations(principal);
  // API keys stay private to their owner, even for a platform admin.
  if (!scope || (!organizations && model !== 'ApiKey')) return {};
  return scope({ in: organizations ?? [] }, principal);
}
