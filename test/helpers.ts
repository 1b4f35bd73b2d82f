// Test helpers: a fresh SQLite file per test, and GraphQL requests through yoga.fetch.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openDatabase, type Db } from '../src/db/client.js';
import { createServer, type Server } from '../src/server.js';
import { importSnapshot } from '../src/modules/snapshot/snapshot.service.js';
import { getSchema } from '../src/schema.js';
import { getNamedType, type GraphQLUnionType } from 'graphql';

export interface Harness {
  db: Db;
  yoga: Server;
  /** Runs a GraphQL operation; fails the test on top-level errors unless allowErrors. */
  gql<T = any>(query: string, variables?: Record<string, unknown>, options?: { allowErrors?: boolean }): Promise<{ data: T; errors?: any[] }>;
  /** Statements executed by one operation. */
  countStatements(query: string, variables?: Record<string, unknown>): Promise<number>;
}

export function tempDbFile(name = 'test.db'): string {
  return join(mkdtempSync(join(tmpdir(), 'placement-gql-')), name);
}

export function harness(snapshot?: unknown): Harness {
  const db = openDatabase(tempDbFile());
  if (snapshot) importSnapshot(db, snapshot);
  const yoga = createServer({ db, maskErrors: false });
  const gql = async (query: string, variables?: Record<string, unknown>, options?: { allowErrors?: boolean }) => {
    const response = await yoga.fetch('http://test/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query, variables }),
    });
    const body = (await response.json()) as any;
    if (body.errors && !options?.allowErrors) throw new Error(`GraphQL errors: ${JSON.stringify(body.errors, null, 1)}`);
    return body;
  };
  return {
    db,
    yoga,
    gql,
    async countStatements(query, variables) {
      const before = db.statements.count;
      await gql(query, variables);
      return db.statements.count - before;
    },
  };
}

export const fixture = (path: string) => JSON.parse(readFileSync(fileURLToPath(new URL(path, import.meta.url)), 'utf8'));
export const demoCloud = () => JSON.parse(readFileSync(fileURLToPath(new URL('../demo/demo-cloud.json', import.meta.url)), 'utf8'));

const ERROR_FIELDS: Record<string, string> = {
  InvalidInput: 'issues { path message }',
  GenerationConflict: 'field expected actual',
  DuplicateName: 'field value',
  NotFound: 'kind key',
  CapacityExceeded: 'field providerUuid resourceClass requested used capacity',
};

/** `__typename`, message and code, and the fields of every error type that this mutation's result union can hold. */
export function errorSelection(mutation: string): string {
  const field = getSchema().getMutationType()!.getFields()[mutation];
  const union = getNamedType(field.type) as GraphQLUnionType;
  const members = union.getTypes().map((t) => t.name);
  return ['__typename', '... on DomainError { message code }', ...members.filter((m) => ERROR_FIELDS[m]).map((m) => `... on ${m} { ${ERROR_FIELDS[m]} }`)].join('\n');
}
