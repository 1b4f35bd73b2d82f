// A bad query (Placement's 400): a top-level GraphQL error carrying Placement's status and text.
import { GraphQLError } from 'graphql';

export class QueryError extends GraphQLError {
  constructor(
    message: string,
    readonly status = 400,
  ) {
    super(message, { extensions: { code: 'BAD_REQUEST', status } });
  }
}
