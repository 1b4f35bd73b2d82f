// The executable schema, and its printed form (sorted) as committed in schema.graphql.
import { lexicographicSortSchema, printSchema, type GraphQLSchema } from 'graphql';
import { builder } from './builder.js';
import './modules/index.js';

let schema: GraphQLSchema | undefined;

export function getSchema(): GraphQLSchema {
  return (schema ??= builder.toSchema({ sortSchema: false }));
}

export function printSortedSchema(): string {
  return printSchema(lexicographicSortSchema(getSchema())) + '\n';
}
