// Flavors with validated extra specs, the extra-spec registry, and the allocation-candidate request of a flavor.
import { builder, type InputFieldBuilder } from '../../builder.js';
import { extraSpecRegistry, type ExtraSpecsCheck, type ExtraSpecValidator } from '../../catalog/extra-specs.js';
import { ResourceAmount } from '../common/common.graphql.js';
import { connectionOptions, edgeOptions, offsetConnection } from '../common/connection.js';
import { DuplicateNameError, NotFoundError } from '../common/errors.graphql.js';
import { defineMutation } from '../common/mutation.js';
import { ProblemRef } from '../common/problem.graphql.js';
import { RequestRefused } from '../common/errors.js';
import { refusalData } from '../common/refusal.graphql.js';
import { BootRequestError, buildBootRequest, type BootRequest, type FlavorSpec, type ImageSpec, type PlacementQuery } from './boot-request.js';
import { bootCandidates, type BootCandidates } from './boot-candidates.js';
import { CandidatesResultRef } from '../candidates/candidates.graphql.js';
import { DEFAULT_MAX_CANDIDATES } from '../candidates/index.js';
import * as service from './flavors.service.js';
import type { ExtraSpecRow, FlavorRow } from './flavors.service.js';
import type { ImageRow } from '../images/images.service.js';
import type { Context } from '../../context.js';

export const ValidationModeEnum = builder.enumType('ValidationMode', {
  description: 'How extra specs are checked against the registry (the modes of the flavor extra spec validator spec).',
  values: {
    STRICT: { description: 'The default: invalid values and every key without a validator are rejected.' },
    PERMISSIVE: { description: 'Invalid values are rejected; keys without a validator are accepted and returned as warnings.' },
    OFF: { description: "Only Nova's format checks: keys of [a-zA-Z0-9-_:. ], 1 to 255 characters, values of at most 255 characters." },
  } as const,
});

export const ExtraSpecInput = builder.inputType('ExtraSpecInput', {
  description: 'One flavor extra spec.',
  fields: (t) => ({
    key: t.string({ required: true, description: 'The key, e.g. hw:cpu_policy or trait:HW_CPU_X86_AVX2.' }),
    value: t.string({ required: true, description: 'The value, e.g. dedicated or required.' }),
  }),
});

const ValueTypeEnum = builder.enumType('ExtraSpecValueType', {
  description: 'The type of an extra-spec value, as Nova checks it.',
  values: {
    INT: { value: 'int', description: "An integer as Python's int() reads it (surrounding spaces, a sign and _ between digits are allowed)." },
    STR: { value: 'str', description: 'A string, possibly limited to an enum or a pattern.' },
    BOOL: { value: 'bool', description: 'A boolean-like string: 1, t, true, on, y, yes or 0, f, false, off, n, no (any case).' },
  } as const,
});

const SourceEnum = builder.enumType('ExtraSpecValidatorSource', {
  description: 'Where a validator comes from.',
  values: {
    BUILT_IN: { description: "Nova's own registry (Nova 26)." },
    OPERATOR: { description: "The operators' file named in the server configuration; built-in validators take precedence." },
  } as const,
});

const ParameterRef = builder.objectRef<NonNullable<ExtraSpecValidator['parameters']>[number]>('ExtraSpecParameter').implement({
  description: 'A parameter in the name of an extra spec, e.g. {num} in hw:numa_cpus.{num}.',
  fields: (t) => ({
    name: t.exposeString('name', { description: 'Its name, as written between braces.' }),
    pattern: t.exposeString('pattern', { description: 'The (Python) regular expression it must match.' }),
    description: t.string({ nullable: true, description: 'What it stands for.', resolve: (p) => p.description ?? null }),
  }),
});

const ValueRuleRef = builder.objectRef<ExtraSpecValidator['value']>('ExtraSpecValueRule').implement({
  description: 'What the value of an extra spec must be.',
  fields: (t) => ({
    type: t.field({ type: ValueTypeEnum, description: 'Its type.', resolve: (v) => v.type }),
    description: t.string({ nullable: true, description: 'What the value means.', resolve: (v) => v.description ?? null }),
    enum: t.stringList({ nullable: true, description: 'The allowed values (case-sensitive), when limited.', resolve: (v) => v.enum ?? null }),
    min: t.int({ nullable: true, description: 'The smallest allowed integer.', resolve: (v) => v.min ?? null }),
    max: t.int({ nullable: true, description: 'The largest allowed integer.', resolve: (v) => v.max ?? null }),
    pattern: t.string({ nullable: true, description: 'The (Python) regular expression the whole value must match.', resolve: (v) => v.pattern ?? null }),
  }),
});

export const ExtraSpecValidatorRef = builder.objectRef<ExtraSpecValidator>('ExtraSpecValidator').implement({
  description: 'A validator of the extra-spec registry: which keys it covers and what their values must be.',
  fields: (t) => ({
    name: t.exposeString('name', { description: 'The key, with {parameters}, e.g. hw:numa_cpus.{num}.' }),
    namespace: t.string({ nullable: true, description: 'The namespace (text before the first ":" without parameters), e.g. hw or trait; null for keys without one.', resolve: (v) => v.namespace }),
    description: t.exposeString('description', { description: 'What the extra spec does (reStructuredText).' }),
    deprecated: t.boolean({ description: 'Whether it is deprecated.', resolve: (v) => !!v.deprecated }),
    source: t.field({ type: SourceEnum, description: 'Built in, or from the operators’ file.', resolve: (v) => v.source }),
    nameRegex: t.exposeString('nameRegex', { description: 'The (Python) pattern of the key: each {parameter} replaced by its pattern, as Nova builds it.' }),
    parameters: t.field({ type: [ParameterRef], description: 'The parameters of the name.', resolve: (v) => v.parameters ?? [] }),
    value: t.field({ type: ValueRuleRef, description: 'What the value must be.', resolve: (v) => v.value }),
  }),
});

export const ExtraSpecsCheckRef = builder.objectRef<ExtraSpecsCheck>('ExtraSpecsCheck').implement({
  description: "The verdict on a set of extra specs. Errors come in Nova's order: the first is the one Nova's API answers with.",
  fields: (t) => ({
    valid: t.exposeBoolean('valid', { description: 'Whether the extra specs would be accepted (no errors).' }),
    errors: t.field({ type: [ProblemRef], description: "Why they would be rejected, with Nova's texts.", resolve: (c) => c.errors }),
    warnings: t.field({ type: [ProblemRef], description: 'What is accepted but worth knowing (keys without a validator in PERMISSIVE mode, deprecated keys, repeated keys).', resolve: (c) => c.warnings }),
  }),
});

const FlavorExtraSpecRef = builder.objectRef<ExtraSpecRow>('FlavorExtraSpec').implement({
  description: 'One extra spec of a flavor, with the validator that covers its key.',
  fields: (t) => ({
    key: t.exposeString('key', { description: 'The key.' }),
    value: t.exposeString('value', { description: 'The value.' }),
    validator: t.field({ type: ExtraSpecValidatorRef, nullable: true, description: 'The validator of this key; null when none covers it.', resolve: (s) => extraSpecRegistry().find(s.key) }),
    description: t.string({ nullable: true, description: "The validator's description; null when no validator covers the key.", resolve: (s) => extraSpecRegistry().find(s.key)?.description ?? null }),
    deprecated: t.boolean({ description: 'Whether its validator is deprecated.', resolve: (s) => !!extraSpecRegistry().find(s.key)?.deprecated }),
  }),
});

interface PlacementRequestShape extends PlacementQuery {
  fallback: PlacementRequestShape | null;
  imageTraitsRequired: string[];
  warnings: string[];
  apiError: string | null;
}

const PlacementRequestGroupRef = builder.objectRef<PlacementQuery['groups'][number]>('PlacementRequestGroup').implement({
  description: 'One request group of an allocation-candidate request.',
  fields: (t) => ({
    suffix: t.string({ description: 'The group suffix ("" for the unsuffixed group), as in resources<suffix>.', resolve: (g) => g.suffix ?? '' }),
    resources: t.field({ type: [ResourceAmount], description: 'Amounts per resource class, sorted by class.', resolve: (g) => g.resources }),
    required: t.exposeStringList('required', { description: 'Required traits, sorted.' }),
    forbidden: t.exposeStringList('forbidden', { description: 'Forbidden traits, sorted.' }),
  }),
});

export const PlacementRequestRef = builder.objectRef<PlacementRequestShape>('PlacementRequest');

PlacementRequestRef.implement({
  description: 'The GET /allocation_candidates request Nova 26 sends for a server create (default configuration).',
  fields: (t) => ({
    query: t.exposeString('query', { description: "Placement's query string, exactly as Nova writes it (sorted, url-encoded)." }),
    groups: t.field({ type: [PlacementRequestGroupRef], description: 'The request groups: the unsuffixed one first, then by suffix.', resolve: (r) => r.groups }),
    groupPolicy: t.string({ nullable: true, description: 'none or isolate, from the group_policy extra spec; null when absent.', resolve: (r) => r.groupPolicy }),
    rootRequired: t.exposeStringList('rootRequired', { description: 'Traits the root provider must have (request filters), sorted.' }),
    rootForbidden: t.exposeStringList('rootForbidden', { description: 'Traits the root provider must not have, sorted (always COMPUTE_STATUS_DISABLED).' }),
    limit: t.exposeInt('limit', { description: 'At most this many candidates ([scheduler]max_placement_results).' }),
    cpuPinningRequested: t.exposeBoolean('cpuPinningRequested', { description: 'Whether hw:cpu_policy=dedicated turned the vCPUs into PCPU.' }),
    fallback: t.field({
      type: PlacementRequestRef,
      nullable: true,
      description: 'With CPU pinning, the second query Nova sends when the first finds nothing: the same request asking VCPU instead of PCPU.',
      resolve: (r) => r.fallback,
    }),
    imageTraitsRequired: t.exposeStringList('imageTraitsRequired', { description: "The image's trait:NAME=required traits, merged into the unsuffixed group." }),
    warnings: t.exposeStringList('warnings', { description: 'What Nova logs while building it: extra specs it ignores, a missing group_policy...' }),
    apiError: t.string({
      nullable: true,
      description: "Why Nova's POST /servers would answer 400 before scheduling (flavor and image conflicts, CPU policy rules); null when it would not. NUMA topology checks are not reproduced.",
      resolve: (r) => r.apiError,
    }),
  }),
});

function shapeRequest(request: BootRequest): PlacementRequestShape {
  const fallback = request.fallback && { ...request.fallback, fallback: null, imageTraitsRequired: request.imageTraitsRequired, warnings: [], apiError: request.apiError };
  return { ...request, fallback };
}

async function flavorSpec(ctx: Context, flavor: FlavorRow): Promise<FlavorSpec> {
  const specs = await ctx.loaders.flavors.extraSpecs.load(flavor.id);
  return { ...flavor, extraSpecs: specs.map((s) => [s.key, s.value] as const) };
}

/** The named image as the request builder reads it; null for none; a 404 query error when unknown. */
async function imageSpec(ctx: Context, name: string | null | undefined): Promise<ImageSpec | null> {
  if (name == null) return null;
  const image: ImageRow | undefined = await ctx.loaders.images.byName.load(name);
  if (!image) throw new RequestRefused(`Image ${name} could not be found.`, 404);
  const properties = await ctx.loaders.images.properties.load(image.id);
  return { uuid: image.uuid, name: image.name, properties: properties.map((p) => [p.key, p.value] as const) };
}

/** The request Nova would build, or the query error it would meet (its text). */
async function requestFor(ctx: Context, flavor: FlavorRow, imageName: string | null | undefined, bootFromVolume = false) {
  const image = await imageSpec(ctx, imageName);
  try {
    return buildBootRequest(await flavorSpec(ctx, flavor), image, { bootFromVolume });
  } catch (error) {
    if (error instanceof BootRequestError) throw new RequestRefused(error.message);
    throw error;
  }
}

export const FlavorRef = builder.objectRef<FlavorRow>('Flavor');

builder.node(FlavorRef, {
  description: 'A flavor: the size of a server and its extra specs.',
  id: { resolve: (f) => f.name },
  loadOne: (name, ctx) => ctx.loaders.flavors.byName.load(name),
  fields: (t) => ({
    name: t.exposeString('name', { description: 'The natural key.' }),
    vcpus: t.exposeInt('vcpus', { description: 'Virtual CPUs.' }),
    memoryMb: t.exposeInt('memoryMb', { description: 'Memory in MiB.' }),
    rootGb: t.exposeInt('rootGb', { description: 'Root disk in GiB (0: the image size, or a volume).' }),
    ephemeralGb: t.exposeInt('ephemeralGb', { description: 'Ephemeral disk in GiB.' }),
    swapMb: t.exposeInt('swapMb', { description: 'Swap in MiB.' }),
    isPublic: t.exposeBoolean('isPublic', { description: 'Whether every project may use it.' }),
    novaId: t.string({ nullable: true, description: "Nova's flavor id when the flavor is mirrored from Nova (gateway mode); null for a flavor of this server's own.", resolve: (f) => f.novaId ?? null }),
    extraSpecs: t.field({
      type: [FlavorExtraSpecRef],
      description: 'Its extra specs, in the order they were first set, each with its validator.',
      resolve: (f, _args, ctx) => ctx.loaders.flavors.extraSpecs.load(f.id),
    }),
    extraSpecsCheck: t.field({
      type: ExtraSpecsCheckRef,
      description: 'Its extra specs checked against the registry as it is now (operators’ validators included).',
      args: { mode: t.arg({ type: ValidationModeEnum, required: false, description: 'STRICT when absent.' }) },
      resolve: async (f, { mode }, ctx) => extraSpecRegistry().check(await ctx.loaders.flavors.extraSpecs.load(f.id), mode ?? 'STRICT'),
    }),
    request: t.field({
      type: PlacementRequestRef,
      description: 'The allocation-candidate request Nova would send to boot a server of this flavor from the image. A conflict Nova cannot build it with is a top-level error with its text.',
      args: {
        image: t.arg.string({ required: false, description: 'The image name; none: an image without properties.' }),
        bootFromVolume: t.arg.boolean({ required: false, defaultValue: false, description: 'Boot from a volume: the root disk is not asked for.' }),
      },
      resolve: async (f, args, ctx) => shapeRequest(await requestFor(ctx, f, args.image, args.bootFromVolume ?? false)),
    }),
  }),
});

const BootCandidatesRef = builder.objectRef<BootCandidates>('BootCandidates').implement({
  description: 'Where a server of a flavor and image could boot: the request Nova sends, the candidates found, and why there are none.',
  fields: (t) => ({
    request: t.field({
      type: PlacementRequestRef,
      nullable: true,
      description: 'The request Nova sends; null when it cannot build one (see reasons).',
      resolve: (b) => b.request && shapeRequest(b.request),
    }),
    result: t.field({
      type: CandidatesResultRef,
      nullable: true,
      description: "The candidates search's answer; null when Nova stops before asking Placement (see reasons).",
      resolve: (b) => (b.result instanceof RequestRefused ? refusalData(b.result) : b.result),
    }),
    usedFallback: t.exposeBoolean('usedFallback', { description: 'Whether these are the candidates of the VCPU fallback query (pinned CPUs found none).' }),
    reasons: t.exposeStringList('reasons', {
      description: 'Why no server could boot: Nova refusing the request, Placement refusing it, resources or traits no provider has, constraints that alone rule every provider out. Empty when candidates were found.',
    }),
  }),
});

const FlavorFilter = builder.inputType('FlavorFilter', {
  description: 'Which flavors to list.',
  fields: (t) => ({
    search: t.string({ required: false, description: 'Names containing this (case-insensitive).' }),
    isPublic: t.boolean({ required: false, description: 'Only public (true) or private (false) flavors.' }),
    extraSpecKey: t.string({ required: false, description: 'Only flavors with this extra spec key.' }),
  }),
});

builder.queryFields((t) => ({
  flavor: t.field({
    type: FlavorRef,
    nullable: true,
    description: 'The flavor with this name, or null.',
    args: { name: t.arg.string({ required: true, description: 'Its name.' }) },
    resolve: (_root, { name }, ctx) => ctx.loaders.flavors.byName.load(name),
  }),
  flavors: t.connection(
    {
      type: FlavorRef,
      description: 'Flavors, by name.',
      args: { filter: t.arg({ type: FlavorFilter, required: false, description: 'Which flavors; all when absent.' }) },
      resolve: (_root, args, ctx) =>
        offsetConnection(args, (page) => {
          const result = service.listFlavors(ctx.db, args.filter ?? {}, page);
          for (const row of result.rows) ctx.loaders.flavors.byId.prime(row.id, row);
          return result;
        }),
    },
    connectionOptions('Flavor', 'flavors'),
    edgeOptions('Flavor', 'flavors'),
  ),
  bootCandidates: t.field({
    type: BootCandidatesRef,
    description: "Runs the request Nova would send for a server of this flavor and image through the candidates search, as Nova's scheduler does, and says why when nothing fits.",
    args: {
      flavor: t.arg.string({ required: true, description: 'The flavor name.' }),
      image: t.arg.string({ required: false, description: 'The image name; none: an image without properties.' }),
      limit: t.arg.int({ required: false, description: 'At most this many allocation requests (Nova asks for 1000).' }),
      bootFromVolume: t.arg.boolean({ required: false, defaultValue: false, description: 'Boot from a volume: the root disk is not asked for.' }),
    },
    resolve: async (_root, args, ctx) => {
      const flavor = await ctx.loaders.flavors.byName.load(args.flavor);
      if (!flavor) throw new RequestRefused(`Flavor ${args.flavor} could not be found.`, 404);
      const answer = await bootCandidates(ctx.db, await flavorSpec(ctx, flavor), await imageSpec(ctx, args.image), {
        bootFromVolume: args.bootFromVolume ?? false,
        limit: args.limit,
        maxCandidates: ctx.limits?.maxCandidates ?? DEFAULT_MAX_CANDIDATES,
      });
      if (answer.result && !(answer.result instanceof RequestRefused)) ctx.loaders.providers.prime(answer.result.providerSummaries.map((s) => s.provider));
      return answer;
    },
  }),
  extraSpecValidators: t.field({
    type: [ExtraSpecValidatorRef],
    description: "The extra-spec registry: Nova's validators in registry order, then the operators'.",
    args: {
      namespace: t.arg.string({ required: false, description: 'Only this namespace (e.g. hw, trait; "" for keys without one).' }),
      search: t.arg.string({ required: false, description: 'Only validators whose name or description contains this (case-insensitive).' }),
    },
    resolve: (_root, { namespace, search }) => {
      const needle = search?.toLowerCase();
      return extraSpecRegistry().all.filter(
        (v) => (namespace == null || (v.namespace ?? '') === namespace) && (!needle || v.name.toLowerCase().includes(needle) || v.description.toLowerCase().includes(needle)),
      );
    },
  }),
  extraSpecValidator: t.field({
    type: ExtraSpecValidatorRef,
    nullable: true,
    description: 'The validator Nova would check this key with (exact name first, then the first matching pattern), or null.',
    args: { key: t.arg.string({ required: true, description: 'An extra spec key, e.g. hw:numa_cpus.0.' }) },
    resolve: (_root, { key }) => extraSpecRegistry().find(key) ?? null,
  }),
  validateExtraSpecs: t.field({
    type: ExtraSpecsCheckRef,
    description: "Checks extra specs as Nova's os-extra_specs API does, without storing them.",
    args: {
      extraSpecs: t.arg({ type: [ExtraSpecInput], required: true, description: 'The extra specs, in order.' }),
      mode: t.arg({ type: ValidationModeEnum, required: false, description: 'STRICT when absent.' }),
    },
    resolve: (_root, { extraSpecs, mode }) => extraSpecRegistry().check(extraSpecs, mode ?? 'STRICT'),
  }),
}));

const FlavorPayload = builder.objectRef<service.FlavorChange>('FlavorPayload').implement({
  description: 'The flavor after the change, and what the extra-spec check warned about.',
  fields: (t) => ({
    flavor: t.field({ type: FlavorRef, description: 'The flavor as it is now.', resolve: (p) => p.flavor }),
    warnings: t.field({ type: [ProblemRef], description: 'Accepted extra specs worth a second look (PERMISSIVE keys without a validator, deprecated keys).', resolve: (p) => p.warnings }),
  }),
});

const DeleteFlavorPayload = builder.objectRef<FlavorRow>('DeleteFlavorPayload').implement({
  description: 'The flavor that was deleted.',
  fields: (t) => ({ name: t.exposeString('name', { description: 'Its name.' }) }),
});

const validationArg = (t: InputFieldBuilder) => t.field({ type: ValidationModeEnum, required: false, description: 'How the extra specs are checked; STRICT when absent.' });

defineMutation('createFlavor', {
  description: 'Creates a flavor; its extra specs are checked against the registry (InvalidInput with Nova’s texts when rejected).',
  input: (t) => ({
    name: t.string({ required: true, description: 'A unique name, 1 to 255 characters, without leading or trailing spaces.' }),
    vcpus: t.int({ required: true, description: 'Virtual CPUs (at least 1).' }),
    memoryMb: t.int({ required: true, description: 'Memory in MiB (at least 1).' }),
    rootGb: t.int({ required: true, description: 'Root disk in GiB (0 or more).' }),
    ephemeralGb: t.int({ required: false, description: 'Ephemeral disk in GiB (default 0).' }),
    swapMb: t.int({ required: false, description: 'Swap in MiB (default 0).' }),
    isPublic: t.boolean({ required: false, description: 'Whether every project may use it (default true).' }),
    extraSpecs: t.field({ type: [ExtraSpecInput], required: false, description: 'Extra specs, in order.' }),
    validation: validationArg(t),
  }),
  payload: FlavorPayload,
  errors: [DuplicateNameError],
  resolve: (input, ctx) => ctx.writes.createFlavor(input),
});

defineMutation('deleteFlavor', {
  description: 'Deletes a flavor and its extra specs.',
  input: (t) => ({ name: t.string({ required: true, description: 'The flavor.' }) }),
  payload: DeleteFlavorPayload,
  errors: [NotFoundError],
  resolve: (input, ctx) => ctx.writes.deleteFlavor(input.name),
});

defineMutation('setFlavorExtraSpecs', {
  description: 'Adds or replaces extra specs of a flavor (POST /flavors/{id}/os-extra_specs); only the keys given are checked.',
  input: (t) => ({
    name: t.string({ required: true, description: 'The flavor.' }),
    extraSpecs: t.field({ type: [ExtraSpecInput], required: true, description: 'The extra specs to set, in order.' }),
    validation: validationArg(t),
  }),
  payload: FlavorPayload,
  errors: [NotFoundError],
  resolve: (input, ctx) => ctx.writes.setFlavorExtraSpecs(input),
});

defineMutation('unsetFlavorExtraSpecs', {
  description: 'Removes extra specs of a flavor (DELETE /flavors/{id}/os-extra_specs/{key}); each key must be set.',
  input: (t) => ({
    name: t.string({ required: true, description: 'The flavor.' }),
    keys: t.stringList({ required: true, description: 'The keys to remove.' }),
  }),
  payload: FlavorPayload,
  errors: [NotFoundError],
  resolve: async (input, ctx) => ({ flavor: await ctx.writes.unsetFlavorExtraSpecs(input), warnings: [] }),
});
