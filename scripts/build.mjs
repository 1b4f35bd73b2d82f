// npm run build: src/ compiled to JavaScript in dist/ (tsconfig.build.json), with the files the code
// reads at run time beside it: the dashboard page's script and style (tsc copies the imported JSON),
// and GraphiQL's prebuilt page files with their licence, taken from the @graphql-yoga/graphiql
// development dependency so that the package needs none of its build inputs.
// `--if-changed` (npm start) builds only when a file of src/ is newer than the last build.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

process.chdir(fileURLToPath(new URL('..', import.meta.url)));
const STAMP = 'dist/.built';

const newest = (dir) => Math.max(...readdirSync(dir, { withFileTypes: true }).map((e) => (e.isDirectory() ? newest(join(dir, e.name)) : statSync(join(dir, e.name)).mtimeMs)));
const builtAt = () => {
  try {
    return statSync(STAMP).mtimeMs;
  } catch {
    return 0;
  }
};

if (process.argv.includes('--if-changed') && builtAt() >= Math.max(newest('src'), ...['tsconfig.json', 'tsconfig.build.json'].map((f) => statSync(f).mtimeMs))) process.exit(0);

const started = Date.now();
rmSync('dist', { recursive: true, force: true });
try {
  execFileSync(process.execPath, [createRequire(import.meta.url).resolve('typescript/bin/tsc'), '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
} catch {
  console.error('placement-gql: the build failed (tsc above); dist/ is incomplete.');
  process.exit(1);
}
cpSync('src', 'dist', { recursive: true, filter: (from) => !from.endsWith('.ts') });
const { ASSETS, graphiqlPackageDist } = await import('../dist/server/graphiql.js');
const graphiql = graphiqlPackageDist();
for (const [from, name] of [...Object.values(ASSETS).map(({ file }) => [join(graphiql, file), file]), [join(graphiql, '../LICENSE'), 'LICENSE']]) {
  mkdirSync(dirname(join('dist/server/graphiql', name)), { recursive: true });
  cpSync(from, join('dist/server/graphiql', name));
}
writeFileSync(STAMP, '');
console.log(`Compiled src/ to dist/ in ${((Date.now() - started) / 1000).toFixed(0)} s.`);
