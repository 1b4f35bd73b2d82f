// Placement 8.0.0's JSON schemas for request bodies and query strings, copied from
// placement/schemas/{resource_provider,inventory,aggregate,trait,resource_class}.py of
// openstack/placement 8.0.0 (Copyright OpenStack Foundation and contributors, Licensed under the
// Apache License, Version 2.0: http://www.apache.org/licenses/LICENSE-2.0). Keys keep Placement's
// order, which is the order errors are found in; test/rest-json-schema.test.ts compares each with
// the Python original.
import { PyFloat } from '../rules/python.js';
import type { Schema } from './json-schema.js';

const MAX_INT = 2147483647;
/** db_const.SQL_SP_FLOAT_MAX, a float in Python. */
const SQL_SP_FLOAT_MAX = new PyFloat(3.40282e38);

// schemas/common.py
const RC_PATTERN = '^[A-Z0-9_]+$';
const CUSTOM_RC_PATTERN = '^CUSTOM_[A-Z0-9_]+$';
const CUSTOM_TRAIT_PATTERN = '^CUSTOM_[A-Z0-9_]+$';

// schemas/resource_provider.py
const UUID: Schema = { type: 'string', format: 'uuid' };
const PARENT_PROVIDER_UUID: Schema = { anyOf: [{ type: 'string', format: 'uuid' }, { type: 'null' }] };

export const POST_RESOURCE_PROVIDER_SCHEMA: Schema = {
  type: 'object',
  properties: { name: { type: 'string', maxLength: 200 }, uuid: UUID },
  required: ['name'],
  additionalProperties: false,
};
export const PUT_RESOURCE_PROVIDER_SCHEMA: Schema = {
  type: 'object',
  properties: { name: { type: 'string', maxLength: 200 } },
  required: ['name'],
  additionalProperties: false,
};
export const POST_RP_SCHEMA_V1_14: Schema = {
  type: 'object',
  properties: { name: { type: 'string', maxLength: 200 }, uuid: UUID, parent_provider_uuid: PARENT_PROVIDER_UUID },
  required: ['name'],
  additionalProperties: false,
};
export const PUT_RP_SCHEMA_V1_14: Schema = {
  type: 'object',
  properties: { name: { type: 'string', maxLength: 200 }, parent_provider_uuid: PARENT_PROVIDER_UUID },
  required: ['name'],
  additionalProperties: false,
};

const rpQuery = (properties: Schema): Schema => ({ type: 'object', properties, additionalProperties: false });
const RPS_1_0 = { name: { type: 'string' }, uuid: UUID };
const RPS_1_3 = { ...RPS_1_0, member_of: { type: 'string' } };
const RPS_1_4 = { ...RPS_1_3, resources: { type: 'string' } };
const RPS_1_14 = { ...RPS_1_4, in_tree: UUID };
export const GET_RPS_SCHEMA_1_0 = rpQuery(RPS_1_0);
export const GET_RPS_SCHEMA_1_3 = rpQuery(RPS_1_3);
export const GET_RPS_SCHEMA_1_4 = rpQuery(RPS_1_4);
export const GET_RPS_SCHEMA_1_14 = rpQuery(RPS_1_14);
export const GET_RPS_SCHEMA_1_18 = rpQuery({ ...RPS_1_14, required: { type: 'string' } });

// schemas/inventory.py
const INVENTORY_FIELDS = {
  resource_provider_generation: { type: 'integer' },
  total: { type: 'integer', maximum: MAX_INT, minimum: 1 },
  reserved: { type: 'integer', maximum: MAX_INT, minimum: 0 },
  min_unit: { type: 'integer', maximum: MAX_INT, minimum: 1 },
  max_unit: { type: 'integer', maximum: MAX_INT, minimum: 1 },
  step_size: { type: 'integer', maximum: MAX_INT, minimum: 1 },
  allocation_ratio: { type: 'number', maximum: SQL_SP_FLOAT_MAX },
};
export const BASE_INVENTORY_SCHEMA: Schema = {
  type: 'object',
  properties: INVENTORY_FIELDS,
  required: ['total', 'resource_provider_generation'],
  additionalProperties: false,
};
export const POST_INVENTORY_SCHEMA: Schema = {
  type: 'object',
  properties: { ...INVENTORY_FIELDS, resource_class: { type: 'string', pattern: RC_PATTERN } },
  required: ['total', 'resource_class'],
  additionalProperties: false,
};
const PUT_INVENTORY_RECORD_SCHEMA: Schema = { type: 'object', properties: INVENTORY_FIELDS, required: ['total'], additionalProperties: false };
export const PUT_INVENTORY_SCHEMA: Schema = {
  type: 'object',
  properties: {
    resource_provider_generation: { type: 'integer' },
    inventories: { type: 'object', patternProperties: { [RC_PATTERN]: PUT_INVENTORY_RECORD_SCHEMA } },
  },
  required: ['resource_provider_generation', 'inventories'],
  additionalProperties: false,
};

// schemas/aggregate.py
const AGGREGATES_LIST_SCHEMA: Schema = { type: 'array', items: UUID, uniqueItems: true };
export const PUT_AGGREGATES_SCHEMA_V1_1 = AGGREGATES_LIST_SCHEMA;
export const PUT_AGGREGATES_SCHEMA_V1_19: Schema = {
  type: 'object',
  properties: { aggregates: AGGREGATES_LIST_SCHEMA, resource_provider_generation: { type: 'integer' } },
  required: ['aggregates', 'resource_provider_generation'],
  additionalProperties: false,
};

// schemas/trait.py
const TRAIT: Schema = { type: 'string', minLength: 1, maxLength: 255 };
export const CUSTOM_TRAIT: Schema = { ...TRAIT, pattern: CUSTOM_TRAIT_PATTERN };
export const SET_TRAITS_FOR_RP_SCHEMA: Schema = {
  type: 'object',
  properties: { traits: { type: 'array', items: TRAIT }, resource_provider_generation: { type: 'integer' } },
  required: ['traits', 'resource_provider_generation'],
  additionalProperties: false,
};
export const LIST_TRAIT_SCHEMA: Schema = { type: 'object', properties: { name: { type: 'string' }, associated: { type: 'string' } }, additionalProperties: false };

// schemas/resource_class.py
export const POST_RC_SCHEMA_V1_2: Schema = {
  type: 'object',
  properties: { name: { type: 'string', pattern: CUSTOM_RC_PATTERN, maxLength: 255 } },
  required: ['name'],
  additionalProperties: false,
};
export const PUT_RC_SCHEMA_V1_2 = POST_RC_SCHEMA_V1_2;
