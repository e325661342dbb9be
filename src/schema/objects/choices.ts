import type { OrganizationScopedModel } from '../../auth/tenancy.js';
import { findForChange } from '../changes.js';
import type { ChoiceShape } from '../choices.js';
import type { Context } from '../context.js';

/**
 * Choices come from one query limited by tenancy; only an empty answer costs a second statement, to
 * tell "nothing to choose from" apart from an id the caller cannot see (NOT_FOUND).
 */
export async function choicesFor(
  ctx: Context,
  source: { model: OrganizationScopedModel; rowId: number; label: string },
  choices: Promise<ChoiceShape[]>,
): Promise<ChoiceShape[]> {
  const found = await choices;
  if (found.length === 0) await findForChange(ctx, source.model, source.rowId, source.label);
  return found;
}
