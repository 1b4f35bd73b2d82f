import { defineConfig } from 'vitest/config';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

export default defineConfig({
  // One graphql instance: Node loads graphql's CommonJS entry for the libraries, so the tests must too.
  resolve: { alias: [{ find: /^graphql$/, replacement: require.resolve('graphql') }] },
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Each skipped test is listed with its reason before the summary.
    reporters: ['./test/skip-reasons.ts', 'default'],
  },
});
