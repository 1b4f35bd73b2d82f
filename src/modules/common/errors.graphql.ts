// GraphQL types of the expected failures, returned by mutations as members of their result unions.
import type { FieldMap, ValidateInterfaces } from '@pothos/core';
import { builder, type Types } from '../../builder.js';
import * as E from './errors.js';

export const DomainErrorInterface = builder.interfaceRef<E.DomainError>('DomainError').implement({
  description: 'An expected failure of a mutation: nothing was changed.',
  fields: (t) => ({
    message: t.exposeString('message', { description: 'What went wrong, naming the field and the rule.' }),
    code: t.exposeString('code', { description: "Placement's error code for the same failure." }),
  }),
});

/** The typename an error carries once handed over as plain data (common/mutation.ts); payloads carry none. */
export const typenameOf = (value: unknown): string | undefined =>
  typeof value === 'object' && value !== null && 'typename' in value && typeof value.typename === 'string' ? value.typename : undefined;

/** isTypeOf of the error type of this name. */
export const isError = (name: string) => (value: unknown) => typenameOf(value) === name;

/** An error type; mutations hand errors over as plain objects carrying their typename. */
export const errorType = <T extends E.DomainError>(
  name: string,
  _cls: abstract new (...args: never[]) => T,
  description: string,
  fields: (t: PothosSchemaTypes.ObjectFieldBuilder<Types, T>) => FieldMap = () => ({}),
) =>
  builder.objectRef<T>(name).implement<[typeof DomainErrorInterface]>({
    description,
    // Pothos checks that T extends DomainError with a conditional type, which stays unresolved while T
    // is a type parameter; the constraint on T says it does (and concrete error types pass the check).
    interfaces: [DomainErrorInterface] as [typeof DomainErrorInterface] & ValidateInterfaces<T, Types, typeof DomainErrorInterface>[],
    isTypeOf: isError(name),
    fields,
  });

export const NotFoundError = errorType('NotFound', E.NotFound, 'The object named in the input does not exist.', (t) => ({
  kind: t.exposeString('kind', { description: 'The kind of object looked for (e.g. resource provider).' }),
  key: t.exposeString('key', { description: 'The key it was looked for by.' }),
}));

export const DuplicateNameError = errorType('DuplicateName', E.DuplicateName, 'A name or uuid that must be unique is already taken.', (t) => ({
  field: t.exposeString('field', { description: 'The input field holding the duplicate.' }),
  value: t.exposeString('value', { description: 'The duplicate value.' }),
}));

export const GenerationConflictError = errorType(
  'GenerationConflict',
  E.GenerationConflict,
  'The object changed since the generation the caller read: read it again and retry.',
  (t) => ({
    field: t.exposeString('field', { description: 'The input field holding the generation.' }),
    expected: t.exposeInt('expected', { nullable: true, description: 'The generation the caller sent (null: the caller expected a new consumer).' }),
    actual: t.exposeInt('actual', { nullable: true, description: 'The current generation (null: the consumer does not exist).' }),
  }),
);

export const InUseError = errorType('InUse', E.InUse, 'The object is still used (by allocations, children or providers) and cannot be changed that way.');

export const CapacityExceededError = errorType(
  'CapacityExceeded',
  E.CapacityExceeded,
  'An allocation does not fit the inventory: capacity, min_unit, max_unit or step_size.',
  (t) => ({
    field: t.exposeString('field', { description: 'The input field of the failing amount.' }),
    providerUuid: t.exposeString('providerUuid', { description: 'The provider whose inventory is exceeded.' }),
    resourceClass: t.exposeString('resourceClass', { description: 'The resource class.' }),
    requested: t.exposeInt('requested', { description: 'The amount asked for.' }),
    used: t.exposeInt('used', { description: 'The amount already used by other consumers.' }),
    capacity: t.exposeInt('capacity', { description: 'floor((total - reserved) * allocation_ratio).' }),
  }),
);

export const IssueType = builder.objectRef<E.Issue>('Issue').implement({
  description: 'One problem with the input.',
  fields: (t) => ({
    path: t.exposeString('path', { description: 'Where in the input (dotted path, e.g. inventories.0.total).' }),
    message: t.exposeString('message', { description: 'The rule broken.' }),
  }),
});

export const InvalidInputError = errorType('InvalidInput', E.InvalidInput, 'The input breaks one or more rules; every problem is listed.', (t) => ({
  issues: t.field({ type: [IssueType], description: 'Every problem found.', resolve: (e: E.InvalidInput) => e.issues }),
}));
