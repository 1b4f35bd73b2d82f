// schema [--check|--write]: the GraphQL schema as the code prints it, compared with or written to schema.graphql.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { CommandOptions } from './command.js';
import { printSortedSchema } from './schema.js';

export function schemaCommand({ values }: CommandOptions): number {
  const printed = printSortedSchema();
  const schemaFile = fileURLToPath(new URL('../schema.graphql', import.meta.url));
  if (values.write) {
    writeFileSync(schemaFile, printed);
    console.log('schema.graphql written.');
    return 0;
  }
  if (!values.check) {
    process.stdout.write(printed);
    return 0;
  }
  const committed = readFileSync(schemaFile, 'utf8');
  if (committed === printed) {
    console.log('schema.graphql is up to date.');
    return 0;
  }
  console.error('schema.graphql differs from the schema the code prints: run `npm run schema:print` and commit it.');
  return 1;
}
