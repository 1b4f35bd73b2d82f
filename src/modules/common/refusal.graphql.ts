// The one mapping of the domain's refusal (RequestRefused: Placement's status and message) to GraphQL:
// as `RequestError` data in fields whose result has that member (candidates, explainCandidates), and
// otherwise as a top-level error with code BAD_REQUEST and the status (reported by the server's
// useDomainErrors plugin through reportedError).
import { GraphQLError } from 'graphql';
import { builder } from '../../builder.js';
import { RequestRefused } from './errors.js';

/** A refusal as data (graphql-js takes a returned Error for a failure, so it is copied into a plain object). */
export interface RequestErrorData {
  refused: true;
  status: number;
  message: string;
}

export const RequestErrorRef = builder.objectRef<RequestErrorData>('RequestError').implement({
  description: 'Placement refuses the request: the HTTP status and the message text Placement 8.0.0 gives for the same input.',
  fields: (t) => ({
    status: t.exposeInt('status', { description: 'HTTP status Placement answers with: 400 (bad input), 404 (microversion below 1.10, or an unknown provider), 406 (unsupported microversion).' }),
    message: t.exposeString('message', { description: "Placement's message (its JSON error's `detail` without webob's first sentence, whitespace collapsed)." }),
  }),
});

export const isRefusal = (value: unknown): value is RequestErrorData => (value as RequestErrorData | null)?.refused === true;

/** Placement's refusal as RequestError data. */
export const refusalData = (error: RequestRefused): RequestErrorData => ({ refused: true, status: error.status, message: error.message });

/** The answer, or Placement's refusal of the request as RequestError data. */
export async function orRefusal<T>(answer: Promise<T> | (() => T | Promise<T>)): Promise<T | RequestErrorData> {
  try {
    return await (typeof answer === 'function' ? answer() : answer);
  } catch (error) {
    if (error instanceof RequestRefused) return refusalData(error);
    throw error;
  }
}

/** An execution error as it is reported: one raised by a RequestRefused becomes a BAD_REQUEST with the status, at the same place. */
export function reportedError(error: GraphQLError): GraphQLError {
  const refused = error.originalError;
  if (!(refused instanceof RequestRefused)) return error;
  const reported = new GraphQLError(error.message, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    path: error.path,
    originalError: new GraphQLError(refused.message, { extensions: { code: 'BAD_REQUEST', status: refused.status } }),
  });
  // Compiled execution (graphql-jit) gives locations without nodes.
  if (!reported.locations && error.locations) (reported as { locations?: unknown }).locations = error.locations;
  return reported;
}
