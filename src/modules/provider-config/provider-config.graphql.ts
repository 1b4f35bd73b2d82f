// Provider config: checking Nova provider-config documents, planning and applying them, and where a
// provider's inventories and traits came from.
import { builder } from '../../builder.js';
import { defineMutation } from '../common/mutation.js';
import { GenerationConflictError } from '../common/errors.graphql.js';
import type { InventoryFields } from '../inventories/inventories.service.js';
import { inventoryValueFields } from '../inventories/inventories.graphql.js';
import { ResourceProviderRef } from '../providers/providers.graphql.js';
import { ProblemRef } from '../common/problem.graphql.js';
import { checkDocuments, type ConfigDocument } from './provider-config.documents.js';
import { isChanged, type ConfigPlan, type PlannedInventory, type PlannedTrait, type ProviderPlan } from './provider-config.service.js';
import type { ConfigSourceRow } from './provider-config.loaders.js';

export const ProviderConfigDocumentInput = builder.inputType('ProviderConfigDocument', {
  description: 'One provider-config YAML document, as a file of Nova\'s [compute]provider_config_location directory.',
  fields: (t) => ({
    name: t.string({ required: true, description: 'Its file name, e.g. 10-default.yaml: documents are read in code point order of their names, as Nova reads *.yaml files.' }),
    content: t.string({ required: true, description: 'The YAML text (read as Nova reads it: YAML 1.1, so an unquoted 1.0 is a number and yes a boolean).' }),
  }),
});

const ProviderConfigCheck = builder.objectRef<ReturnType<typeof checkDocuments>>('ProviderConfigCheck').implement({
  description: "Nova's verdict on a set of provider-config documents: nova-compute starts with them only when they are valid.",
  fields: (t) => ({
    valid: t.boolean({ description: 'Whether Nova 26 accepts the documents.', resolve: (c) => c.errors.length === 0 }),
    errors: t.field({ type: [ProblemRef], description: 'Why Nova refuses them; the first is the error nova-compute fails to start with.', resolve: (c) => c.errors }),
    warnings: t.field({
      type: [ProblemRef],
      description: 'What Nova warns about (an unsupported minor version, an entry that does nothing), and what Placement will refuse when they are applied.',
      resolve: (c) => [...c.warnings, ...c.applyProblems],
    }),
    documents: t.stringList({ description: 'The document names in the order they are read.', resolve: (c) => c.documents }),
  }),
});

builder.queryField('validateProviderConfig', (t) =>
  t.field({
    type: ProviderConfigCheck,
    description: 'Checks provider-config documents as Nova 26 does when nova-compute starts; changes nothing.',
    args: { documents: t.arg({ type: [ProviderConfigDocumentInput], required: true, description: 'The documents, all of them.' }) },
    resolve: (_root, { documents }) => checkDocuments(documents as ConfigDocument[]),
  }),
);

const InventoryValues = builder.objectRef<InventoryFields>('InventoryValues').implement({
  description: "An inventory's values (Placement's defaults filled in).",
  fields: inventoryValueFields,
});

const PlannedInventoryRef = builder.objectRef<PlannedInventory>('PlannedInventory').implement({
  description: 'An inventory a provider-config plan adds, changes or removes.',
  fields: (t) => ({
    resourceClass: t.exposeString('resourceClass', { description: 'The CUSTOM_ resource class.' }),
    document: t.exposeString('document', { description: 'The document that sets it; for a removal, the one that had set it.' }),
    before: t.field({ type: InventoryValues, nullable: true, description: 'Its values now; null when it is added.', resolve: (i) => i.before }),
    after: t.field({ type: InventoryValues, nullable: true, description: 'Its values after; null when it is removed.', resolve: (i) => i.after }),
    used: t.exposeInt('used', { description: 'Units allocated now.' }),
  }),
});

const PlannedTraitRef = builder.objectRef<PlannedTrait>('PlannedTrait').implement({
  description: 'A trait a provider-config plan adds or removes.',
  fields: (t) => ({
    trait: t.exposeString('trait', { description: 'The CUSTOM_ trait.' }),
    document: t.exposeString('document', { description: 'The document that sets it; for a removal, the one that had set it.' }),
  }),
});

const ProviderConfigChange = builder.objectRef<ProviderPlan>('ProviderConfigChange').implement({
  description: 'What a provider-config plan does to one provider.',
  fields: (t) => ({
    provider: t.field({ type: ResourceProviderRef, description: 'The provider (as it is now).', resolve: async (p, _args, ctx) => (await ctx.loaders.providers.byId.load(p.provider.id)) ?? p.provider }),
    configuredBy: t.stringList({ description: 'The entries that apply to it, as `document: identification` (e.g. `10-default.yaml: $COMPUTE_NODE`); empty when only removals remain.', resolve: (p) => p.configuredBy }),
    generation: t.exposeInt('generation', { description: 'The provider generation the changes expect; applying bumps it once when anything changes.' }),
    changed: t.boolean({ description: 'Whether anything changes on this provider.', resolve: (p) => isChanged(p) }),
    addInventories: t.field({ type: [PlannedInventoryRef], description: 'Inventories added.', resolve: (p) => p.addInventories }),
    changeInventories: t.field({ type: [PlannedInventoryRef], description: 'Inventories whose values change.', resolve: (p) => p.changeInventories }),
    removeInventories: t.field({ type: [PlannedInventoryRef], description: 'Inventories provider config had set and no document declares any more.', resolve: (p) => p.removeInventories }),
    addTraits: t.field({ type: [PlannedTraitRef], description: 'Traits added.', resolve: (p) => p.addTraits }),
    removeTraits: t.field({ type: [PlannedTraitRef], description: 'Traits provider config had added and no document declares any more.', resolve: (p) => p.removeTraits }),
  }),
});

const ProviderConfigPlan = builder.objectRef<ConfigPlan>('ProviderConfigPlan').implement({
  description: 'What applying a set of provider-config documents does, per provider, and what prevents it.',
  fields: (t) => ({
    applied: t.exposeBoolean('applied', { description: 'Whether the changes were written (false for a dry run or when there are errors).' }),
    dryRun: t.exposeBoolean('dryRun', { description: 'Whether this was a dry run.' }),
    valid: t.boolean({ description: 'Whether there are no errors (the plan can be applied).', resolve: (p) => p.errors.length === 0 }),
    documents: t.stringList({ description: 'The document names in the order they are read.', resolve: (p) => p.documents }),
    providers: t.field({ type: [ProviderConfigChange], description: 'Every provider configured, and those losing what config had set on them.', resolve: (p) => p.providers }),
    newTraits: t.stringList({ description: 'Custom traits created by applying.', resolve: (p) => p.newTraits }),
    newResourceClasses: t.stringList({ description: 'Custom resource classes created by applying.', resolve: (p) => p.newResourceClasses }),
    errors: t.field({ type: [ProblemRef], description: 'Why it cannot be applied: nothing is applied while there is one.', resolve: (p) => p.errors }),
    warnings: t.field({ type: [ProblemRef], description: 'Unknown providers, entries that do nothing, and the like.', resolve: (p) => p.warnings }),
  }),
});

const ExpectedGenerationInput = builder.inputType('ProviderGenerationInput', {
  description: 'A provider generation read earlier.',
  fields: (t) => ({
    providerUuid: t.field({ type: 'UUID', required: true, description: 'The provider.' }),
    generation: t.int({ required: true, description: 'Its generation as read.' }),
  }),
});

defineMutation('applyProviderConfig', {
  description:
    'Applies provider-config documents as Nova merges them into its providers, in one transaction: all or nothing. ' +
    'The documents are the complete configuration: inventories and traits that documents set before and no longer declare are removed; ' +
    'what was set by other means is never touched, and a document declaring an inventory set by other means is a conflict.',
  input: (t) => ({
    documents: t.field({ type: [ProviderConfigDocumentInput], required: true, description: 'Every document of the configuration.' }),
    dryRun: t.boolean({ required: false, description: 'Only plan: change nothing (default false).' }),
    expectedGenerations: t.field({
      type: [ExpectedGenerationInput],
      required: false,
      description: 'Generations from an earlier dry run: refused with GenerationConflict when one of these providers changed since.',
    }),
  }),
  payload: ProviderConfigPlan,
  errors: [GenerationConflictError],
  resolve: (input, ctx) => ctx.writes.applyProviderConfig(input),
});

const ConfigSourceKind = builder.enumType('ConfigSourceKind', {
  description: 'What a provider-config document set on a provider.',
  values: {
    INVENTORY: { description: 'An inventory.' },
    TRAIT: { description: 'A trait.' },
  } as const,
});

const ConfigSource = builder.objectRef<ConfigSourceRow>('ConfigSource').implement({
  description: 'An inventory or trait of a provider set by a provider-config document.',
  fields: (t) => ({
    kind: t.field({ type: ConfigSourceKind, description: 'Inventory or trait.', resolve: (s) => s.kind }),
    name: t.exposeString('name', { description: 'The resource class or trait.' }),
    document: t.exposeString('document', { description: 'The document that set it.' }),
    appliedAt: t.exposeString('appliedAt', { description: 'When the document last set it (ISO 8601, UTC).' }),
  }),
});

builder.objectFields(ResourceProviderRef, (t) => ({
  configSources: t.field({
    type: [ConfigSource],
    description:
      'Which provider-config document set each of its inventories and traits (those set by other means are not listed; an inventory changed by other means since is theirs).',
    resolve: (p, _args, ctx) => ctx.loaders.providerConfig.sourcesOfProvider.load(p.id),
  }),
}));
