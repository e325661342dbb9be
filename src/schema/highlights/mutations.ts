import type { Columns } from '../../db/delegate.js';
import type { Transaction } from '../changes.js';
import { defineCrudMutations, boardOfRow } from '../crud.js';
import { HighlightOperand } from '../enums.js';
import { badUserInput } from '../errors.js';
import { ruleProblem, type Rule } from './rules.js';

defineCrudMutations({
  model: 'WhiteboardHighlightGroup',
  typeName: 'WhiteboardHighlightGroup',
  label: 'Whiteboard highlight group',
  action: 'editContent',
  parent: 'whiteboardId',
  fields: {
    whiteboardId: boardOfRow,
    name: { type: 'String', required: true },
    isActive: { type: 'Boolean', description: 'Whether the highlights of the group apply; true when not given.' },
  },
});

const ruleFields = ['classConfId', 'attributeId', 'operand', 'value'] as const;

/** The class, attribute, group and rule of a highlight must fit together, after the change is applied to the stored row. */
async function checkHighlight(
  tx: Transaction,
  data: Columns<'WhiteboardHighlight'>,
  rowId: number | null,
): Promise<void> {
  const stored =
    rowId == null
      ? undefined
      : await tx.whiteboardHighlight.findUniqueOrThrow({
          where: { id: rowId },
          select: { whiteboardId: true, classConfId: true, attributeId: true, operand: true, value: true },
        });
  const highlight = { operand: 'EQUAL', value: '', ...stored, ...data } as Rule & {
    whiteboardId: number;
    classConfId: number;
    attributeId: number;
    groupId?: number | null;
  };
  if (highlight.groupId != null) {
    const group = await tx.whiteboardHighlightGroup.findUniqueOrThrow({
      where: { id: highlight.groupId },
      select: { whiteboardId: true },
    });
    if (group.whiteboardId !== highlight.whiteboardId)
      throw badUserInput(`groupId ${highlight.groupId} is not a highlight group of the same board`, 'input.groupId');
  }
  if (!ruleFields.some((field) => data[field] !== undefined)) return;
  const attribute = await tx.classConfAttribute.findUniqueOrThrow({
    where: { id: highlight.attributeId },
    select: { classConfId: true, type: true, choices: true },
  });
  if (attribute.classConfId !== highlight.classConfId) {
    throw badUserInput(
      `attributeId ${highlight.attributeId} is not an attribute of class ${highlight.classConfId}`,
      'input.attributeId',
    );
  }
  const problem = ruleProblem(highlight, attribute);
  if (problem) throw badUserInput(problem.message, `input.${problem.field}`);
}

defineCrudMutations({
  model: 'WhiteboardHighlight',
  typeName: 'WhiteboardHighlight',
  label: 'Whiteboard highlight',
  action: 'editContent',
  parent: 'whiteboardId',
  fields: {
    whiteboardId: boardOfRow,
    groupId: {
      type: 'Int',
      references: 'WhiteboardHighlightGroup',
      description: 'Row id of a highlight group of the same board; null for none.',
    },
    name: { type: 'String', required: true },
    color: { type: 'String', maxLength: 32 },
    classConfId: {
      type: 'Int',
      required: true,
      references: 'ClassConf',
      description: 'Row id of the class whose objects the rule marks.',
    },
    attributeId: {
      type: 'Int',
      required: true,
      references: 'ClassConfAttribute',
      description: 'Row id of an attribute of that class.',
    },
    operand: { type: HighlightOperand, description: 'EQUAL when not given.' },
    value: {
      type: 'String',
      description:
        "Compared as the attribute's type (see updateWhiteboardObjectAttribute); ignored by IS_EMPTY and IS_NOT_EMPTY.",
    },
    isActive: { type: 'Boolean', description: 'true when not given.' },
  },
  check: checkHighlight,
});
