// How the GraphQL layer reports a refused request (Placement's 400 or 404): a top-level error with
// Placement's status and text. The one mapping from the domain's RequestRefused; and from a write lock
// another process held too long (DatabaseBusy, or SQLite's own busy answer), a retryable DATABASE_BUSY.
import { GraphQLError } from 'graphql';
import { RequestRefused } from './errors.js';
import { DatabaseBusy, isBusy } from '../../db/client.js';

export class QueryError extends GraphQLError {
  constructor(
    message: string,
    readonly status = 400,
  ) {
    super(message, { extensions: { code: 'BAD_REQUEST', status } });
  }
}

/** A change, or a read, that found the database locked by another process for longer than the server waits. */
export class DatabaseBusyError extends GraphQLError {
  constructor() {
    super(new DatabaseBusy().message, { extensions: { code: 'DATABASE_BUSY', http: { status: 503, headers: { 'retry-after': '1' } } } });
  }
}

/** Whether an execution error is one reportedError rewrites. */
export const isReported = (error: GraphQLError) => error.originalError instanceof RequestRefused || error.originalError instanceof DatabaseBusy || isBusy(error.originalError);

/** An execution error as it is reported: one raised by a RequestRefused becomes the QueryError it stands for, at the same place; a busy database, DatabaseBusyError. */
export function reportedError(error: GraphQLError): GraphQLError {
  const cause = error.originalError;
  if (!isReported(error)) return error;
  const originalError = cause instanceof RequestRefused ? new QueryError(cause.message, cause.status) : new DatabaseBusyError();
  const reported = new GraphQLError(originalError.message, { nodes: error.nodes, source: error.source, positions: error.positions, path: error.path, originalError });
  // Compiled execution (graphql-jit) gives locations without nodes.
  if (!reported.locations && error.locations) (reported as { locations?: unknown }).locations = error.locations;
  return reported;
}
