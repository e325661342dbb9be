import { Kind, parse, print, type OperationDefinitionNode, type SelectionSetNode, type TypeNode } from 'graphql';
import type { CompiledRoute } from './compile.js';
import type { SchemaNaming } from './json-schema.js';
import { pascalCase } from './names.js';
import { fastApiOperationId } from './operation-ids.js';
import * as views from './views.js';

// The names the OpenAPI document gives its schemas. legacy-v1-interface.md lists the legacy's schema
// names without their fields, so a legacy name goes where it plainly fits (`WhiteboardReadSchema`
// for the board's read view); anything it names nowhere gets a name derived as `schemaNaming` says.

/** The legacy name of each read view of views.ts. */
const readSchemas: Record<string, string> = {
  UploadedFileSchema: views.fileRef,
  RateRead: views.rate,
  OrganizationRead: views.organization,
  UserReadSchema: views.user,
  UserOrganizationRoleReadSchema: views.membership,
  UserInviteReadSchema: views.invite,
  UserActionLogObjectsReadSchema: views.actionLog,
  WhiteboardBaseSchema: views.whiteboardArchive,
  WhiteboardReadSchema: views.whiteboard,
  WhiteboardDataStreamReadSchema: views.dataStream,
  WhiteboardDataStreamSlideReadSchema: views.slide,
  WhiteboardDataStreamConnectionReadSchema: views.dataStreamConnection,
  WhiteboardObjectReadSchema: views.whiteboardObject,
  WhiteboardObjectInstanceReadSchema: views.objectInstance,
  WhiteboardObjectAttributeDataReadSchema: views.objectAttribute,
  WhiteboardObjectConnectionDataReadSchema: views.objectConnection,
  WhiteboardObjectRelationDataDetailReadSchema: views.objectRelation,
  WhiteboardHighlightReadSchema: views.highlight,
  WhiteboardHighlightGroupReadSchema: views.highlightGroup,
  ObjectRepositoryReadSchema: views.repositoryEntry,
  LibraryReadSchema: views.library,
  LibraryClassTextureReadSchema: views.libraryTexture,
  LibraryClassConfReadSchema: views.classConf,
  ClassConfAttributeReadSchema: views.classConfAttribute,
};

/** The legacy name of the body each GraphQL input type makes. */
const bodySchemas: Record<string, string> = {
  CreateUserInviteInput: 'UserInviteCreateSchema',
  RegisterWithInviteInput: 'RegisterUserInviteSchema',
  UpdateMeInput: 'UserInfoUpdateSchema',
  UpdateMemberRoleInput: 'UserOrganizationRoleSchema',
  CreateOrganizationInput: 'OrganizationCreate',
  UpdateOrganizationInput: 'OrganizationUpdate',
  CreateLibraryInput: 'LibraryCreateSchema',
  UpdateLibraryInput: 'LibraryUpdateSchema',
  CreateClassConfInput: 'LibraryClassConfCreateSchema',
  UpdateClassConfInput: 'LibraryClassConfUpdateSchema',
  CreateClassConfAttributeInput: 'ClassConfAttributeCreateSchema',
  UpdateClassConfAttributeInput: 'ClassConfAttributeUpdateSchema',
  ReorderClassConfAttributesInput: 'ClassConfAttributeOrderUpdateSchema',
  CreateTextureInput: 'LibraryClassTextureCreateSchema',
  UpdateTextureInput: 'LibraryClassTextureUpdateSchema',
  CreateWhiteboardInput: 'WhiteboardCreateSchema',
  UpdateWhiteboardInput: 'WhiteboardUpdateSchema',
  CreateDataStreamInput: 'WhiteboardDataStreamCreateSchema',
  UpdateDataStreamInput: 'WhiteboardDataStreamUpdateSchema',
  CreateDataStreamConnectionInput: 'WhiteboardDataStreamConnectionCreateSchema',
  UpdateDataStreamConnectionInput: 'WhiteboardDataStreamConnectionUpdateSchema',
  ReorderDataStreamConnectionsInput: 'WhiteboardDataStreamConnectionOrderUpdateSchema',
  CreateSlideInput: 'WhiteboardDataStreamSlideCreateSchema',
  UpdateSlideInput: 'WhiteboardDataStreamSlideUpdateSchema',
  ReorderSlidesInput: 'WhiteboardDataStreamSlideOrderUpdateSchema',
  CreateWhiteboardObjectInput: 'WhiteboardObjectCreateSchema',
  UpdateWhiteboardObjectInput: 'WhiteboardObjectUpdateSchema',
  CreateWhiteboardObjectInstanceInput: 'WhiteboardObjectInstanceCreateSchema',
  UpdateWhiteboardObjectInstanceInput: 'WhiteboardObjectInstanceUpdateSchema',
  UpdateWhiteboardObjectAttributeInput: 'WhiteboardObjectAttributeDataUpdateSchema',
  CreateWhiteboardObjectConnectionInput: 'WhiteboardObjectConnectionDataCreateSchema',
  UpdateWhiteboardObjectConnectionInput: 'WhiteboardObjectConnectionDataUpdateSchema',
  CreateWhiteboardHighlightInput: 'WhiteboardHighlightCreateSchema',
  UpdateWhiteboardHighlightInput: 'WhiteboardHighlightUpdateSchema',
  CreateWhiteboardHighlightGroupInput: 'WhiteboardHighlightGroupCreateSchema',
  UpdateWhiteboardHighlightGroupInput: 'WhiteboardHighlightGroupUpdateSchema',
  CreateObjectRepositoryEntryInput: 'ObjectRepositoryCreateSchema',
};

/** The legacy name of each GraphQL enum. */
const enumSchemas: Record<string, string> = {
  ActionMethod: 'MethodEnum',
  ApiKeyPermission: 'APIKeyPermissionEnum',
  Role: 'UserRolesInOrganization',
  RateCode: 'RateCodeEnum',
  LibraryPublishedStatus: 'LibraryPublishedStatusEnum',
  LibraryClassType: 'LibraryClassConfEnum',
  ClassConfAttributeType: 'ClassConfAttributeTypeEnum',
  HighlightOperand: 'HighlightOperandEnum',
  DataStreamConnectionDirection: 'WhiteboardDataStreamConnectionDirectionEnum',
  ObjectConnectionDirection: 'WhiteboardObjectConnectionDirectionEnum',
  ObjectConnectionShape: 'WhiteboardObjectConnectionShapeEnum',
  ObjectConnectionStyle: 'WhiteboardObjectConnectionStyleEnum',
};

/** The legacy names this module gives (a test checks each against the legacy document). */
export const legacySchemaNames = [
  ...Object.keys(readSchemas),
  ...Object.values(bodySchemas),
  ...Object.values(enumSchemas),
];

// A selection set is known by its printed form, so a view nested in another (a board's `mini_drawing`) is known too.
const selectionKey = (selectionSet: SelectionSetNode) => print(selectionSet);
const viewKey = (view: string) =>
  selectionKey((parse(`{ ${view} }`).definitions[0] as OperationDefinitionNode).selectionSet);
const readSchemaOfView = new Map(Object.entries(readSchemas).map(([name, view]) => [viewKey(view), name]));

/** `WhiteboardReadSchema` -> `Whiteboard`: what a nested object's derived name starts with. */
const stem = (name: string) => name.replace(/(Read)?Schema$/, '');

/**
 * A view's legacy name; else, for an object nested in another, the holder's stem and its key
 * (`WhiteboardAuthor`, the board's author); else the GraphQL type's name (`OrganizationInfo`). An
 * enum has its legacy name, else its GraphQL name; an input object its GraphQL name (a body is named
 * by `bodySchemaName`).
 */
export const schemaNaming: SchemaNaming = {
  enum: (type) => enumSchemas[type.name] ?? type.name,
  input: (type) => type.name,
  selection: (type, selectionSet, at) =>
    readSchemaOfView.get(selectionKey(selectionSet)) ?? (at ? `${stem(at.parent)}${pascalCase(at.key)}` : type.name),
};

const namedType = (node: TypeNode): string => (node.kind === Kind.NAMED_TYPE ? node.name.value : namedType(node.type));

/**
 * The name of a route's request body: the legacy name of its input type, unless the path or query
 * fills part of that input besides the row id (a parent's id), which makes the body another schema. Otherwise
 * FastAPI's name for a body that is no model of its own, `Body_<operation id>`, as the legacy's
 * upload and import bodies are named.
 */
export function bodySchemaName(route: CompiledRoute): string {
  const operation = route.document.definitions[0] as OperationDefinitionNode;
  const variable = operation.variableDefinitions?.find((definition) => definition.variable.name.value === route.body);
  const legacy = variable && bodySchemas[namedType(variable.type)];
  const requestFillsMore = route.params.some(
    (param) => param.in !== 'body' && param.target?.[0] === route.body && param.target?.[1] !== 'rowId',
  );
  return legacy && !requestFillsMore ? legacy : `Body_${fastApiOperationId(route)}`;
}
