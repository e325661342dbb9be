import type { ModelName } from '../auth/tenancy.js';
import type { Context } from '../schema/context.js';

/**
 * A mutation field that writes one row in one statement, which that statement answers: the planners'
 * plugin runs `write` and answers the payload's columns from the row without the executor (plan.ts).
 */
export interface WritePlanExtension {
  /** The model of the written row. */
  model: ModelName;
  /** The payload's field that holds the written row. */
  rowField: string;
  /** The field's resolver as a function of its arguments: the written row, keyed by Prisma's field names. */
  write(args: Record<string, unknown>, ctx: Context): Promise<Record<string, unknown>>;
}

export const writePlan = (extension: WritePlanExtension) => ({ writePlan: extension });
