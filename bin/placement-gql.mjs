#!/usr/bin/env node
// Runs the TypeScript CLI through tsx, so that `npx placement-gql` works from a clone.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const tsx = require.resolve('tsx/cli');
const main = fileURLToPath(new URL('../src/main.ts', import.meta.url));
// A larger young generation shortens the garbage collection of large answers (as `npm start` does).
const NODE_OPTIONS = [process.env.NODE_OPTIONS, '--max-semi-space-size=32'].filter(Boolean).join(' ');
const result = spawnSync(process.execPath, [tsx, main, ...process.argv.slice(2)], { stdio: 'inherit', env: { ...process.env, NODE_OPTIONS } });
process.exit(result.status ?? 1);
