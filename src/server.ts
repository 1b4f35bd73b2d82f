// createServer(options): graphql-yoga over the schema, with a per-request context. No domain logic.
import { createYoga, type YogaServerInstance } from 'graphql-yoga';
import type { Db } from './db/client.js';
import { createContext, type Context } from './context.js';
import { getSchema } from './schema.js';

export interface ServerOptions {
  db: Db;
  /** Hide internal error details (default true; tests turn it off). */
  maskErrors?: boolean;
  /** The query GraphiQL opens with. */
  graphiqlQuery?: string;
}

export type Server = YogaServerInstance<{}, Context>;

export function createServer(options: ServerOptions): Server {
  return createYoga<{}, Context>({
    schema: getSchema(),
    context: () => createContext(options.db),
    maskedErrors: options.maskErrors ?? true,
    graphiql: { title: 'placement-gql', defaultQuery: options.graphiqlQuery },
    landingPage: false,
  });
}
