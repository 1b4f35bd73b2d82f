// Placement 8.0.0's own gabbi files (test/gabbi/gabbits) against placement-gql's REST API under
// /placement: each file on a fresh database loaded with its fixture's cloud (`placement-gql import`),
// run by `gabbi-run`, must pass at least as many tests as the real Placement passes under the same
// harness (test/gabbi/baseline.json). The harness is test/gabbi/harness.py (Debian's /usr/bin/python3
// with python3-gabbi); test/gabbi/README.md says how it works and how the baseline was made.
//
// By default the files of the routes served so far (REST_FILES: the version document, microversions,
// auth, CORS, resource providers, inventories, usages, aggregates, traits and resource classes) run,
// in one harness run with two files at a time; a test that needs a route not served yet
// (AWAITING_ROUTES: the allocations routes) may fail, and no other. GABBI=1 runs every non-policy
// file of the baseline, one harness run per file.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

interface FileResult {
  run: number;
  passed: number;
  failed: number;
  failedTests: string[];
  reasons?: Record<string, string>;
  error?: string;
}

const root = fileURLToPath(new URL('..', import.meta.url));
const baseline: Record<string, FileResult> = JSON.parse(readFileSync(join(root, 'test/gabbi/baseline.json'), 'utf8'));
const PYTHON = '/usr/bin/python3';
const GABBI_RUN = '/usr/bin/gabbi-run';
const all = process.env.GABBI === '1';
// GABBI_TARGET=placement runs the same comparison against the real Placement 8.0.0 (python3-placement): the harness's own check.
const target = process.env.GABBI_TARGET === 'placement' ? 'placement' : 'gql';
const runnable = existsSync(PYTHON) && existsSync(GABBI_RUN);

/** The files whose routes placement-gql serves. */
const REST_FILES = [
  'basic-http.yaml',
  'microversion.yaml',
  'microversion-bug-1724065.yaml',
  'confirm-auth.yaml',
  'bug-1674694.yaml',
  'unicode.yaml',
  'cors.yaml',
  'non-cors.yaml',
  'resource-provider.yaml',
  'resource-provider-aggregates.yaml',
  'resource-provider-any-traits.yaml',
  'resource-provider-bug-1779818.yaml',
  'resource-provider-duplication.yaml',
  'resource-provider-links.yaml',
  'resource-provider-resources-query.yaml',
  'inventory.yaml',
  'traits.yaml',
  'aggregate.yaml',
  'resource-classes.yaml',
  'resource-classes-1-6.yaml',
  'resource-classes-1-7.yaml',
  'resource-classes-last-modified.yaml',
  'resource-class-in-use.yaml',
];

/** Tests of REST_FILES that use a route not served yet (404 until it is): file -> test -> the route. */
const AWAITING_ROUTES: Record<string, Record<string, string>> = {
  'resource-class-in-use.yaml': {
    'allocate some of it': 'PUT /allocations/{consumer_uuid}',
    'delete the allocation': 'DELETE /allocations/{consumer_uuid}',
  },
  'resource-provider-aggregates.yaml': {
    'negative agg error on old microversion with !in prefix': 'GET /allocation_candidates',
  },
};

const files = all || target === 'placement' ? Object.keys(baseline) : REST_FILES;

// Bounded: one file takes seconds (the slowest, 23 s against the real Placement on a busy machine,
// most of it starting the server); the whole set stops starting files after its budget.
const FILE_TIMEOUT_MS = 120_000;
const SUITE_BUDGET_MS = 20 * 60_000;
const JOBS = 2;

const scratch = mkdtempSync(join(tmpdir(), 'gabbi-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
let suiteStarted = 0;

/** Files through the harness (it stops its servers on SIGTERM): their results by file. */
function runHarness(names: string[], jobs: number, timeoutMs: number): Promise<Record<string, FileResult>> {
  const out = join(scratch, `${names.length === 1 ? names[0] : 'files'}.json`);
  return new Promise((resolve, reject) => {
    execFile(PYTHON, ['test/gabbi/harness.py', target, ...names, '--jobs', String(jobs), '--quiet', '--out', out], { cwd: root, timeout: timeoutMs, killSignal: 'SIGTERM' }, (error, _stdout, stderr) => {
      if (!existsSync(out)) return reject(new Error(`the harness wrote no results (${error?.message ?? 'no error'}): ${stderr.slice(-2000)}`));
      resolve(JSON.parse(readFileSync(out, 'utf8')).files);
    });
  });
}

/** The default set runs in one harness run, started by the first test that needs it. */
let together: Promise<Record<string, FileResult>> | undefined;
const resultOf = (file: string): Promise<FileResult> => {
  if (!all && target === 'gql') {
    together ??= runHarness(files, JOBS, SUITE_BUDGET_MS - 10_000);
    return together.then((results) => results[file] ?? { run: 0, passed: 0, failed: 0, failedTests: [], error: 'not run by the harness' });
  }
  suiteStarted ||= Date.now();
  if (Date.now() - suiteStarted > SUITE_BUDGET_MS) throw new Error(`not run: the set's ${SUITE_BUDGET_MS / 60_000}-minute budget is spent`);
  return runHarness([file], 1, FILE_TIMEOUT_MS - 5_000).then((results) => results[file]);
};

const title = `Placement 8.0.0's gabbi files against ${target === 'gql' ? 'placement-gql at /placement' : 'the real Placement'}${all ? ' (all)' : ''}`;
const SKIP_REASON = `skipped: needs ${PYTHON} and ${GABBI_RUN} (apt-get install python3-gabbi)`;

describe.skipIf(!runnable)(`${title}${runnable ? '' : ` (${SKIP_REASON})`}`, () => {
  beforeAll(() => {
    // Started at once, so the files run while the tests wait in order.
    if (!all && target === 'gql') void resultOf(files[0]).catch(() => undefined);
  });

  for (const file of files) {
    const expected = baseline[file];
    const awaiting = target === 'gql' ? (AWAITING_ROUTES[file] ?? {}) : {};
    const allowed = Object.keys(awaiting).length;
    it(
      `${file}: at least ${expected.passed - allowed} of ${expected.run} tests pass, as with Placement 8.0.0${allowed ? ` (${allowed} await ${[...new Set(Object.values(awaiting))].join(', ')})` : ''}`,
      async () => {
        const result = await resultOf(file);
        expect(result.error, 'the harness could not run the file').toBeUndefined();
        const newlyFailing = result.failedTests.filter((name) => !expected.failedTests.includes(name) && !(name in awaiting));
        const shown = newlyFailing.slice(0, 15).map((name) => `  ${name}: ${result.reasons?.[name] ?? ''}`.slice(0, 300));
        if (newlyFailing.length > shown.length) shown.push(`  and ${newlyFailing.length - shown.length} more`);
        expect(result.run).toBe(expected.run);
        expect(newlyFailing, `${result.passed} of ${result.run} passed; failing where Placement passes:\n${shown.join('\n')}`).toEqual([]);
        expect(result.passed).toBeGreaterThanOrEqual(expected.passed - allowed);
      },
      all || target === 'placement' ? FILE_TIMEOUT_MS : SUITE_BUDGET_MS,
    );
  }
});

if (!runnable) console.info(`test/gabbi.test.ts ${SKIP_REASON}`);
