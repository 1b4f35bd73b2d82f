// Problem: one finding of a check (extra specs, provider config...), shared by the domains that report them.
import { builder } from '../../builder.js';

export interface ProblemShape {
  document?: string | null;
  path?: string | null;
  key?: string | null;
  /** The rule broken, as a short name, when the check names its rules. */
  rule?: string | null;
  message: string;
}

export const ProblemRef = builder.objectRef<ProblemShape>('Problem').implement({
  description: 'One problem found by a check: an error makes the input invalid, a warning does not.',
  fields: (t) => ({
    document: t.string({ nullable: true, description: 'The document it was found in, when the check covers several.', resolve: (p) => p.document ?? null }),
    path: t.string({ nullable: true, description: 'Where in the input (dotted path, e.g. extraSpecs.2.value).', resolve: (p) => p.path ?? null }),
    key: t.string({ nullable: true, description: 'The key concerned (an extra spec, a provider...), when there is one.', resolve: (p) => p.key ?? null }),
    rule: t.string({ nullable: true, description: 'The rule broken, as a short name (e.g. schema_error), when the check names its rules.', resolve: (p) => p.rule ?? null }),
    message: t.exposeString('message', { description: 'What is wrong, in the words of the service that checks it.' }),
  }),
});
