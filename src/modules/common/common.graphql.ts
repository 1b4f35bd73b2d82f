// Small types shared by several domains.
import { builder } from '../../builder.js';

export const ResourceAmountInput = builder.inputType('ResourceAmountInput', {
  description: 'An amount of one resource class.',
  fields: (t) => ({
    resourceClass: t.string({ required: true, description: 'A standard or CUSTOM_ resource class.' }),
    amount: t.int({ required: true, description: 'How many units (at least 1).' }),
  }),
});

export const ResourceAmount = builder.objectRef<{ resourceClass: string; amount: number }>('ResourceAmount').implement({
  description: 'An amount of one resource class.',
  fields: (t) => ({
    resourceClass: t.exposeString('resourceClass', { description: 'The resource class.' }),
    amount: t.exposeInt('amount', { description: 'How many units.' }),
  }),
});
