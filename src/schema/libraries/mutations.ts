import type { Columns } from '../../db/delegate.js';
import type { Prisma } from '../../generated/prisma/client.js';
import type { Transaction } from '../changes.js';
import { defineCrudMutations, defineReorderMutation, type FieldSpec } from '../crud.js';
import { ClassConfAttributeType, LibraryClassType, LibraryPublishedStatus } from '../enums.js';
import { badUserInput, conflict } from '../errors.js';
import { nextPosition } from '../positions.js';
import { principalOf } from '../context.js';

/** How many names a refusal lists before it says "and N more". */
const NAMES_SHOWN = 5;

function listNames(names: string[], total = names.length): string {
  const shown = names.slice(0, NAMES_SHOWN).join(', ');
  return total > NAMES_SHOWN ? `${shown} and ${total - NAMES_SHOWN} more` : shown;
}

/** "used by 3 objects on boards Platform, Pipeline", or null when no object matches. */
async function objectUsage(tx: Transaction, where: Prisma.WhiteboardObjectWhereInput): Promise<string | null> {
  const objects = await tx.whiteboardObject.count({ where });
  if (objects === 0) return null;
  const boardWhere = { objects: { some: where } };
  const boards = await tx.whiteboard.findMany({
    where: boardWhere,
    select: { name: true },
    orderBy: { name: 'asc' },
    take: NAMES_SHOWN,
  });
  const boardCount = await tx.whiteboard.count({ where: boardWhere });
  return `used by ${objects} object${objects === 1 ? '' : 's'} on board${boardCount === 1 ? '' : 's'} ${listNames(
    boards.map((b) => b.name),
    boardCount,
  )}`;
}

const text = (maxLength = 255): FieldSpec => ({ type: 'String', maxLength });

defineCrudMutations({
  model: 'Library',
  typeName: 'Library',
  label: 'Library',
  action: 'manageLibraries',
  parent: 'organizationId',
  defaultParent: (ctx) => principalOf(ctx).activeOrganizationId,
  fields: {
    organizationId: { type: 'Int', references: 'Organization', description: 'Defaults to the active organization.' },
    name: { type: 'String', required: true },
    description: text(10_000),
    publishedStatus: { type: LibraryPublishedStatus },
  },
  onCreate: (_tx, _data, ctx) => ({ authorId: principalOf(ctx).userId }),
  beforeDelete: async (tx, rowId) => {
    const library = await tx.library.findUniqueOrThrow({ where: { id: rowId }, select: { name: true } });
    const usage = await objectUsage(tx, { classConf: { libraryId: rowId } });
    if (usage) throw conflict(`Library ${library.name} cannot be deleted: its classes are ${usage}`);
    // Classes go before the library's cascade reaches the textures they reference (that reference restricts deletes).
    await tx.classConf.deleteMany({ where: { libraryId: rowId } });
  },
});

defineCrudMutations({
  model: 'ClassConf',
  typeName: 'ClassConf',
  label: 'Class',
  action: 'manageLibraries',
  parent: 'libraryId',
  fields: {
    libraryId: { type: 'Int', required: true, references: 'Library' },
    name: { type: 'String', required: true },
    description: text(10_000),
    classType: { type: LibraryClassType },
    icon: text(),
    figureType: text(),
    textureId: {
      type: 'Int',
      references: 'ClassTexture',
      description: 'Row id of a texture of the same organization; null for none.',
    },
  },
  beforeDelete: async (tx, rowId) => {
    const classConf = await tx.classConf.findUniqueOrThrow({ where: { id: rowId }, select: { name: true } });
    const usage = await objectUsage(tx, { classConfId: rowId });
    if (usage) throw conflict(`Class ${classConf.name} cannot be deleted: it is ${usage}`);
  },
});

/** Attribute codes name values in exported documents and highlight rules, so they stay plain. */
const CODE_PATTERN = /^[A-Za-z_][A-Za-z0-9_.-]*$/;

async function checkAttribute(
  tx: Transaction,
  data: Columns<'ClassConfAttribute'>,
  rowId: number | null,
): Promise<void> {
  const current =
    rowId === null
      ? null
      : await tx.classConfAttribute.findUniqueOrThrow({
          where: { id: rowId },
          select: { classConfId: true, type: true, choices: true, code: true },
        });
  const classConfId = data.classConfId ?? current!.classConfId;
  const { code } = data;
  if (code !== undefined && code !== current?.code) {
    if (!CODE_PATTERN.test(code))
      throw badUserInput('code must start with a letter or _ and hold only letters, digits, _, . and -', 'input.code');
    const taken = await tx.classConfAttribute.findFirst({ where: { classConfId, code }, select: { id: true } });
    if (taken) throw badUserInput(`class ${classConfId} already has an attribute with code ${code}`, 'input.code');
  }
  const type = data.type ?? current?.type ?? 'STRING';
  const choices = ((data.choices as string[] | null | undefined) ?? current?.choices ?? []).map((choice) =>
    choice.trim(),
  );
  if (choices.some((choice) => choice === '')) throw badUserInput('choices cannot be empty strings', 'input.choices');
  if (new Set(choices).size !== choices.length) throw badUserInput('choices must be distinct', 'input.choices');
  if (type === 'CHOICE' && choices.length === 0)
    throw badUserInput('a CHOICE attribute needs at least one choice', 'input.choices');
  if (current && data.type !== undefined && data.type !== current.type) {
    const values = await tx.whiteboardObjectAttribute.count({ where: { attributeId: rowId! } });
    // Values live in the column of the type; a new type would strand them.
    if (values > 0)
      throw conflict(
        `The type of attribute ${current.code} cannot change: ${values} object${values === 1 ? ' holds a value' : 's hold values'} for it`,
      );
  }
}

defineCrudMutations({
  model: 'ClassConfAttribute',
  typeName: 'ClassConfAttribute',
  label: 'Class attribute',
  action: 'manageLibraries',
  parent: 'classConfId',
  fields: {
    classConfId: { type: 'Int', required: true, references: 'ClassConf' },
    name: { type: 'String', required: true },
    code: {
      type: 'String',
      required: true,
      maxLength: 64,
      description: 'Unique within the class: letters, digits, _, . and -.',
    },
    type: { type: ClassConfAttributeType },
    order: { type: 'Int', min: 1, description: 'Position in the class; a new attribute without one goes last.' },
    isRequired: { type: 'Boolean' },
    choices: { type: ['String'], description: 'Allowed values; a CHOICE attribute needs at least one.' },
  },
  check: checkAttribute,
  onCreate: async (tx, data) => ({
    order: data.order ?? (await nextPosition(tx, 'ClassConfAttribute', data.classConfId)),
  }),
});

defineReorderMutation({
  model: 'ClassConfAttribute',
  name: 'reorderClassConfAttributes',
  label: 'Class attribute',
  action: 'manageLibraries',
});

const coordinate: FieldSpec = { type: 'Float', min: -100_000, max: 100_000 };
const size: FieldSpec = { type: 'Float', min: 0, max: 100_000 };
const fontSize: FieldSpec = { type: 'Int', min: 1, max: 512 };
const color = text(32);

defineCrudMutations({
  model: 'ClassTexture',
  typeName: 'Texture',
  label: 'Texture',
  action: 'manageLibraries',
  parent: 'libraryId',
  fields: {
    libraryId: { type: 'Int', required: true, references: 'Library' },
    name: text(),
    lightThemeImageId: { type: 'Int', references: 'File', description: 'Row id of a file of the same organization.' },
    darkThemeImageId: { type: 'Int', references: 'File', description: 'Row id of a file of the same organization.' },
    iconX: coordinate,
    iconY: coordinate,
    iconWidth: size,
    iconHeight: size,
    iconVisible: { type: 'Boolean' },
    lightThemeTextColor: color,
    darkThemeTextColor: color,
    nameFontSize: fontSize,
    nameX: coordinate,
    nameY: coordinate,
    nameWidth: size,
    nameHeight: size,
    nameVisible: { type: 'Boolean' },
    classNameFontSize: fontSize,
    classNameVisible: { type: 'Boolean' },
    classNameX: coordinate,
    classNameY: coordinate,
    classNameWidth: size,
    classNameHeight: size,
    width: size,
    height: size,
    lightClassNameColor: color,
    darkClassNameColor: color,
    isTextInCenterWithoutLogo: { type: 'Boolean' },
  },
  beforeDelete: async (tx, rowId) => {
    const texture = await tx.classTexture.findUniqueOrThrow({ where: { id: rowId }, select: { name: true } });
    const where = { textureId: rowId };
    const [classes, classCount] = [
      await tx.classConf.findMany({ where, select: { name: true }, orderBy: { name: 'asc' }, take: NAMES_SHOWN }),
      await tx.classConf.count({ where }),
    ];
    if (classCount === 0) return;
    const usage = await objectUsage(tx, { classConf: where });
    const users = listNames(
      classes.map((c) => c.name),
      classCount,
    );
    throw conflict(
      `Texture ${texture.name || rowId} cannot be deleted: it is used by class${classCount === 1 ? '' : 'es'} ${users}${usage ? `, ${usage}` : ''}`,
    );
  },
});
