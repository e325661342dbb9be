import { getNamedType, isObjectType } from 'graphql';
import { describe, expect, it } from 'vitest';
import type { Principal } from '../src/auth/principal.js';
import { relationTenancy, staysInOrganization, type ModelName } from '../src/auth/tenancy.js';
import { schema } from '../src/schema/index.js';

// The rule of every join (src/auth/tenancy.ts, relationTenancy) is what the planner applies; the
// resolvers must apply the same, or the two paths answer differently. Each relation field of the
// schema is checked against it here, before any data could show a difference.

const principal: Principal = {
  userId: 1,
  credential: 'API_KEY',
  holder: 'key:1',
  expiresAt: null,
  permission: 'READ_ONLY',
  isAdmin: false,
  activeOrganizationId: 1,
  roles: new Map([[1, 'MEMBER']]),
  keyPrefix: 'wbg_test',
  organizationIds: [1],
};
const context = { principal };

const relationFields = Object.values(schema.getTypeMap())
  .filter(isObjectType)
  .flatMap((type) => {
    const model = type.extensions.pothosPrismaModel as ModelName | undefined;
    if (!model) return [];
    return Object.values(type.getFields()).flatMap((field) => {
      const extensions = field.extensions as Record<string, any>;
      const relation: string | undefined = extensions.pothosPrismaRelationField?.name ?? extensions.readPlan?.relation;
      return relation ? [{ name: `${type.name}.${field.name}`, model, relation, field, extensions }] : [];
    });
  });

describe('the tenancy of every join', () => {
  it('knows which relations stay in their organization', () => {
    expect(staysInOrganization('Whiteboard', 'dataStreams')).toBe(true);
    expect(staysInOrganization('DataStream', 'whiteboard')).toBe(true);
    expect(staysInOrganization('Whiteboard', 'organization')).toBe(true);
    expect(staysInOrganization('Organization', 'whiteboards')).toBe(true);
    expect(staysInOrganization('User', 'activeOrganization')).toBe(false);
    expect(staysInOrganization('Whiteboard', 'author')).toBe(false);
    expect(staysInOrganization('Whiteboard', 'miniDrawing')).toBe(false);
    expect(staysInOrganization('WhiteboardObject', 'classConf')).toBe(false);
    expect(staysInOrganization('ClassTexture', 'classes')).toBe(false);
  });

  it.each(relationFields.map((entry) => [entry.name, entry] as const))(
    '%s carries it on the resolvers too',
    (_name, { model, relation, field, extensions }) => {
      const tenancy = relationTenancy(model, relation, principal);
      if (!tenancy) return;
      if (!extensions.pothosPrismaRelationField) {
        // Loaded through the row loader, whose lookups are limited by the target's tenancy (visibleRelation).
        expect(field.type.toString()).not.toMatch(/!$/);
        return;
      }
      const nested = (raw: unknown) => (raw === true ? {} : typeof raw === 'function' ? raw({}, context) : raw);
      const selection = extensions.pothosPrismaSelect({}, context, nested, () => new Map([['edges', {}]]));
      const { where } = selection.select[relation];
      const carried =
        where === tenancy ||
        JSON.stringify(where) === JSON.stringify(tenancy) ||
        where?.AND?.some((part: unknown) => JSON.stringify(part) === JSON.stringify(tenancy));
      expect(carried, `${getNamedType(field.type).name} reached without ${JSON.stringify(tenancy)}`).toBe(true);
    },
  );
});
