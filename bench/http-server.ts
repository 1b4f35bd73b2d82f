// A server for the HTTP benchmark, in its own process: placement-gql on a database file, or a bare
// graphql-yoga with one trivial field. Prints its port once listening.
import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createSchema, createYoga } from 'graphql-yoga';
import { openDatabase } from '../src/db/client.js';
import { createServer } from '../src/server.js';

const [mode, dbFile] = process.argv.slice(2);
const handler =
  mode === 'bare'
    ? createYoga({ schema: createSchema({ typeDefs: 'type Query { hello: String! }', resolvers: { Query: { hello: () => 'world' } } }), logging: false })
    : createServer({ db: openDatabase(dbFile) });
const http = createHttpServer(handler);
http.listen(0, '127.0.0.1', () => console.log(`PORT ${(http.address() as AddressInfo).port}`));
