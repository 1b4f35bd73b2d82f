// Placement 8.0.0's JSON schemas for allocations, usages and the reshaper, copied from
// placement/schemas/{allocation,usage,reshaper}.py of openstack/placement 8.0.0 (Copyright OpenStack
// Foundation and contributors, Licensed under the Apache License, Version 2.0:
// http://www.apache.org/licenses/LICENSE-2.0). Keys keep Placement's order (copy.deepcopy and later
// assignments included), which is the order errors are found in.
import type { Schema } from './json-schema.js';
import { PUT_INVENTORY_SCHEMA } from './schemas.js';

// schemas/common.py
const UUID_PATTERN = '^[0-9a-fA-F-]{36}$';
const RC_PATTERN = '^[A-Z0-9_]+$';
const CONSUMER_TYPE_PATTERN = RC_PATTERN;
const CONSUMER_TYPE_GET_PATTERN = `${CONSUMER_TYPE_PATTERN}|^all|^unknown$`;
const GROUP_PAT_1_33 = '[a-zA-Z0-9_-]{1,64}';

const RESOURCES: Schema = {
  type: 'object',
  minProperties: 1,
  patternProperties: { [RC_PATTERN]: { type: 'integer', minimum: 1 } },
  additionalProperties: false,
};
const OWNER_ID: Schema = { type: 'string', minLength: 1, maxLength: 255 };

export const ALLOCATION_SCHEMA: Schema = {
  type: 'object',
  properties: {
    allocations: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        properties: {
          resource_provider: { type: 'object', properties: { uuid: { type: 'string', format: 'uuid' } }, additionalProperties: false, required: ['uuid'] },
          resources: RESOURCES,
        },
        required: ['resource_provider', 'resources'],
        additionalProperties: false,
      },
    },
  },
  required: ['allocations'],
  additionalProperties: false,
};

export const ALLOCATION_SCHEMA_V1_8: Schema = {
  ...ALLOCATION_SCHEMA,
  properties: { ...(ALLOCATION_SCHEMA.properties as Schema), project_id: OWNER_ID, user_id: OWNER_ID },
  required: ['allocations', 'project_id', 'user_id'],
};

/** ALLOCATION_SCHEMA_V1_12, with the least number of providers it asks for. */
const dictAllocations = (minProviders: number): Schema => ({
  type: 'object',
  properties: {
    allocations: {
      type: 'object',
      minProperties: minProviders,
      patternProperties: {
        [UUID_PATTERN]: {
          type: 'object',
          properties: { generation: { type: 'integer' }, resources: RESOURCES },
          required: ['resources'],
          additionalProperties: false,
        },
      },
      additionalProperties: false,
    },
    project_id: OWNER_ID,
    user_id: OWNER_ID,
  },
  additionalProperties: false,
  required: ['allocations', 'project_id', 'user_id'],
});

/** Adds properties and required names to a consumer's allocations schema, as Placement's copies do. */
const extended = (schema: Schema, properties: Schema, required: string[] = []): Schema => ({
  ...schema,
  properties: { ...(schema.properties as Schema), ...properties },
  required: [...(schema.required as string[]), ...required],
});

export const ALLOCATION_SCHEMA_V1_12 = dictAllocations(1);
const DELETABLE_ALLOCATIONS = dictAllocations(0);
const CONSUMER_GENERATION: Schema = { type: ['integer', 'null'], additionalProperties: false };
export const ALLOCATION_SCHEMA_V1_28 = extended(DELETABLE_ALLOCATIONS, { consumer_generation: CONSUMER_GENERATION }, ['consumer_generation']);
const MAPPINGS: Schema = {
  type: 'object',
  minProperties: 1,
  patternProperties: { [GROUP_PAT_1_33]: { type: 'array', minItems: 1, items: { type: 'string', format: 'uuid' } } },
};
export const ALLOCATION_SCHEMA_V1_34 = extended(ALLOCATION_SCHEMA_V1_28, { mappings: MAPPINGS });
export const ALLOCATION_SCHEMA_V1_38 = extended(
  ALLOCATION_SCHEMA_V1_34,
  { consumer_type: { type: 'string', pattern: CONSUMER_TYPE_PATTERN, minLength: 1, maxLength: 255 } },
  ['consumer_type'],
);

/** POST /allocations: consumers by uuid, each with its allocations (possibly none, to remove them). */
const postAllocations = (consumer: Schema, minConsumers = 1): Schema => ({
  type: 'object',
  minProperties: minConsumers,
  additionalProperties: false,
  patternProperties: { [UUID_PATTERN]: consumer },
});
export const POST_ALLOCATIONS_V1_13 = postAllocations(DELETABLE_ALLOCATIONS);
export const POST_ALLOCATIONS_V1_28 = postAllocations(ALLOCATION_SCHEMA_V1_28);
export const POST_ALLOCATIONS_V1_34 = postAllocations(ALLOCATION_SCHEMA_V1_34);
export const POST_ALLOCATIONS_V1_38 = postAllocations(ALLOCATION_SCHEMA_V1_38);

// schemas/usage.py
export const GET_USAGES_SCHEMA_1_9: Schema = {
  type: 'object',
  properties: { project_id: OWNER_ID, user_id: OWNER_ID },
  required: ['project_id'],
  additionalProperties: false,
};
export const GET_USAGES_SCHEMA_V1_38: Schema = {
  ...GET_USAGES_SCHEMA_1_9,
  properties: { ...(GET_USAGES_SCHEMA_1_9.properties as Schema), consumer_type: { type: 'string', pattern: CONSUMER_TYPE_GET_PATTERN, minLength: 1, maxLength: 255 } },
};

// schemas/reshaper.py: the allocations may be empty (nothing allocated of the inventory moved).
const reshaper = (allocations: Schema): Schema => ({
  type: 'object',
  properties: {
    inventories: { type: 'object', patternProperties: { [UUID_PATTERN]: PUT_INVENTORY_SCHEMA }, minProperties: 1, additionalProperties: false },
    allocations,
  },
  required: ['inventories', 'allocations'],
  additionalProperties: false,
});
export const POST_RESHAPER_SCHEMA = reshaper(postAllocations(ALLOCATION_SCHEMA_V1_28, 0));
export const POST_RESHAPER_SCHEMA_V1_34 = reshaper(postAllocations(ALLOCATION_SCHEMA_V1_34, 0));
export const POST_RESHAPER_SCHEMA_V1_38 = reshaper(postAllocations(ALLOCATION_SCHEMA_V1_38, 0));

// schemas/allocation_candidate.py: the query string of GET /allocation_candidates by microversion.
const STRING: Schema = { type: 'string' };
const GET_SCHEMA_1_10: Schema = { type: 'object', properties: { resources: STRING }, required: ['resources'], additionalProperties: false };
const LIMIT: Schema = { type: ['integer', 'string'], pattern: '^[1-9][0-9]*$', minimum: 1, minLength: 1 };
const GET_SCHEMA_1_16: Schema = { ...GET_SCHEMA_1_10, properties: { resources: STRING, limit: LIMIT } };
const GET_SCHEMA_1_17: Schema = { ...GET_SCHEMA_1_10, properties: { resources: STRING, limit: LIMIT, required: { type: ['string'] } } };
const GET_SCHEMA_1_21: Schema = { ...GET_SCHEMA_1_10, properties: { ...(GET_SCHEMA_1_17.properties as Schema), member_of: { type: ['string'] } } };
const groupKeys = (prefixes: string[], suffix: string): Schema => Object.fromEntries(prefixes.map((p) => [`^${p}(${suffix})?$`, STRING]));
const GROUP_PAT = '[1-9][0-9]*';
const BASE_1_25 = { limit: LIMIT, group_policy: { type: 'string', enum: ['none', 'isolate'] } };
const GET_SCHEMA_1_25: Schema = { type: 'object', properties: BASE_1_25, additionalProperties: false, patternProperties: groupKeys(['resources', 'required', 'member_of'], GROUP_PAT) };
const GET_SCHEMA_1_31: Schema = { ...GET_SCHEMA_1_25, patternProperties: groupKeys(['resources', 'required', 'member_of', 'in_tree'], GROUP_PAT) };
const GET_SCHEMA_1_33: Schema = { ...GET_SCHEMA_1_25, patternProperties: groupKeys(['resources', 'required', 'member_of', 'in_tree'], GROUP_PAT_1_33) };
const GET_SCHEMA_1_35: Schema = { ...GET_SCHEMA_1_33, properties: { ...BASE_1_25, root_required: { type: ['string'] } } };
const GET_SCHEMA_1_36: Schema = { ...GET_SCHEMA_1_33, properties: { ...BASE_1_25, root_required: { type: ['string'] }, same_subtree: { type: ['string'] } } };

/** The schema of GET /allocation_candidates' query string at microversion 1.minor (from 1.10). */
export function allocationCandidatesQuerySchema(minor: number): Schema {
  const [, schema] = CANDIDATE_SCHEMAS.find(([from]) => minor >= from)!;
  return schema;
}
const CANDIDATE_SCHEMAS: [number, Schema][] = [
  [36, GET_SCHEMA_1_36],
  [35, GET_SCHEMA_1_35],
  [33, GET_SCHEMA_1_33],
  [31, GET_SCHEMA_1_31],
  [25, GET_SCHEMA_1_25],
  [21, GET_SCHEMA_1_21],
  [17, GET_SCHEMA_1_17],
  [16, GET_SCHEMA_1_16],
  [0, GET_SCHEMA_1_10],
];
