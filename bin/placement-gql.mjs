#!/usr/bin/env node
// The placement-gql command: the compiled command line, run in this process (no child process).
// dist/ is built by `npm run build`, which npm runs itself when it installs a clone or packs the package.
import { existsSync } from 'node:fs';

const main = new URL('../dist/main.js', import.meta.url);
if (!existsSync(main)) {
  console.error("placement-gql: dist/ is missing: run 'npm run build' in the project first.");
  process.exit(1);
}
await import(main.href);
