// The Pothos builder: plugins, scalars and shared options. Types live in src/modules.
import SchemaBuilder from '@pothos/core';
import RelayPlugin from '@pothos/plugin-relay';
import { GraphQLError, valueFromASTUntyped } from 'graphql';
import type { Context } from './context.js';
import { canonicalUuid } from './rules/names.js';

interface SchemaTypesOptions {
  Context: Context;
  Scalars: {
    UUID: { Input: string; Output: string };
    JSON: { Input: unknown; Output: unknown };
    SafeInt: { Input: number; Output: number };
  };
  DefaultFieldNullability: false;
  DefaultEdgesNullability: { list: false; items: false };
  DefaultNodeNullability: false;
}

/** The builder's schema types, as Pothos completes them: for typing helpers that take field builders or refs. */
export type Types = PothosSchemaTypes.ExtendDefaultTypes<SchemaTypesOptions>;
/** The builder of an input object's fields, for helpers that build fields shared by several inputs. */
export type InputFieldBuilder = PothosSchemaTypes.InputFieldBuilder<Types, 'InputObject'>;

export const builder = new SchemaBuilder<SchemaTypesOptions>({
  plugins: [RelayPlugin],
  defaultFieldNullability: false,
  relay: {
    clientMutationId: 'omit',
    cursorType: 'String',
    nodeQueryOptions: { description: 'Fetches any object by its global id.' },
    nodesQueryOptions: { description: 'Fetches objects by their global ids.' },
    nodeTypeOptions: { description: 'An object with a global id.' },
    pageInfoTypeOptions: { description: 'Where a page of a connection starts and ends.' },
    idFieldOptions: { description: 'The global id of this object (opaque).' },
    cursorFieldOptions: { description: 'An opaque cursor: pass it as `after` to read the page after this edge.' },
    nodeFieldOptions: { description: 'The object at this edge.' },
    edgesFieldOptions: { description: 'The edges of this page, each with its cursor.' },
    nodesOnConnection: { description: 'The objects of this page (the edges without cursors).' },
    pageInfoFieldOptions: { description: 'Where this page starts and ends.' },
    hasNextPageFieldOptions: { description: 'Whether there are objects after this page.' },
    hasPreviousPageFieldOptions: { description: 'Whether there are objects before this page.' },
    startCursorFieldOptions: { description: 'The cursor of the first edge of this page.' },
    endCursorFieldOptions: { description: 'The cursor of the last edge of this page: pass it as `after` for the next page.' },
  },
});

const parseUuid = (value: unknown) => {
  const uuid = typeof value === 'string' ? canonicalUuid(value) : null;
  if (!uuid) throw new GraphQLError(`UUID must be a string like 8-4-4-4-12 hex digits; got ${JSON.stringify(value)}.`);
  return uuid;
};

builder.scalarType('UUID', {
  description: 'A UUID in the 8-4-4-4-12 form (any case is accepted; answers are lower case).',
  serialize: (value) => value,
  parseValue: parseUuid,
  // A literal is a string or nothing: no variables inside, so compiled queries can parse it once.
  parseLiteral: (ast) => parseUuid(valueFromASTUntyped(ast)),
});

builder.scalarType('JSON', {
  description: 'An arbitrary JSON value.',
  serialize: (value) => value,
  parseValue: (value) => value,
});

builder.queryType({ description: 'Reads over resource providers, their resources, and allocation candidates.' });
builder.mutationType({ description: 'Changes, each applied whole in one transaction or not at all.' });
