import { builder } from './builder.js';

/** One option of a choices list (the legacy `Choice`): what to send, and what to show. */
export interface ChoiceShape {
  value: string | number;
  label: string;
}

export const Choice = builder.objectRef<ChoiceShape>('Choice').implement({
  description: 'An option for a select box: `value` to send back, `label` to show.',
  fields: (t) => ({
    value: t.string({
      description: 'The value, as a string (row ids as decimal digits).',
      resolve: (choice) => String(choice.value),
    }),
    label: t.exposeString('label'),
  }),
});
