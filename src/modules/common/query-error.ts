// How the GraphQL layer reports a refused request (Placement's 400 or 404): a top-level error with
// Placement's status and text. The one mapping from the domain's RequestRefused.
import { GraphQLError } from 'graphql';
import { RequestRefused } from './errors.js';

export class QueryError extends GraphQLError {
  constructor(
    message: string,
    readonly status = 400,
  ) {
    super(message, { extensions: { code: 'BAD_REQUEST', status } });
  }
}

/** An execution error as it is reported: one raised by a RequestRefused becomes the QueryError it stands for, at the same place. */
export function reportedError(error: GraphQLError): GraphQLError {
  const refused = error.originalError;
  if (!(refused instanceof RequestRefused)) return error;
  const reported = new GraphQLError(error.message, { nodes: error.nodes, source: error.source, positions: error.positions, path: error.path, originalError: new QueryError(refused.message, refused.status) });
  // Compiled execution (graphql-jit) gives locations without nodes.
  if (!reported.locations && error.locations) (reported as { locations?: unknown }).locations = error.locations;
  return reported;
}
