// Placement 8.0.0's own gabbi files (test/gabbi/gabbits) against placement-gql's REST API under
// /placement: each file on a fresh database loaded with its fixture's cloud (`placement-gql import`),
// run by `gabbi-run`, must pass at least as many tests as the real Placement passes under the same
// harness (test/gabbi/baseline.json). The harness is test/gabbi/harness.py (Debian's /usr/bin/python3
// with python3-gabbi); test/gabbi/README.md says how it works and how the baseline was made.
// The harness runs every file once, two at a time, before the checks; each file is then one test.
// On with GABBI=1 (CI runs it as a step of its own, once): it starts two processes per file and takes
// minutes, which `npm test` on each Node release should not spend.
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
const enabled = process.env.GABBI === '1';
// GABBI_TARGET=placement runs the same comparison against the real Placement 8.0.0 (python3-placement): the harness's own check.
const target = process.env.GABBI_TARGET === 'placement' ? 'placement' : 'gql';
const SKIP_REASON = "GABBI=1 runs Placement's gabbi files against placement-gql (needs /usr/bin/python3 and python3-gabbi; a few minutes)";

// Bounded: the whole set in at most this long (each gabbi-run is also bounded by the harness).
const SUITE_BUDGET_MS = 30 * 60_000;
const JOBS = 2;

const scratch = mkdtempSync(join(tmpdir(), 'gabbi-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

let results: Record<string, FileResult> = {};
let harnessFailure = '';

/** Every baseline file through the harness at once; the harness stops its servers on SIGTERM. */
function runHarness(): Promise<void> {
  const out = join(scratch, 'results.json');
  const files = Object.keys(baseline);
  return new Promise((resolve) => {
    execFile(PYTHON, ['test/gabbi/harness.py', target, ...files, '--jobs', String(JOBS), '--quiet', '--out', out], { cwd: root, timeout: SUITE_BUDGET_MS - 60_000, killSignal: 'SIGTERM' }, (error, _stdout, stderr) => {
      if (existsSync(out)) results = JSON.parse(readFileSync(out, 'utf8')).files;
      else harnessFailure = `the harness wrote no results (${error?.message ?? 'no error'}): ${stderr.slice(-2000)}`;
      resolve();
    });
  });
}

// Off: one skipped test that says why, rather than one per file.
if (!enabled) it(`Placement 8.0.0's gabbi files (${Object.keys(baseline).length})`, (ctx) => ctx.skip(SKIP_REASON));

if (enabled) describe(`Placement 8.0.0's gabbi files against ${target === 'gql' ? 'placement-gql at /placement' : 'the real Placement'}`, () => {
  beforeAll(async () => {
    if (existsSync(PYTHON) && existsSync(GABBI_RUN)) await runHarness();
  }, SUITE_BUDGET_MS);

  it('has what the harness needs', () => {
    expect(existsSync(PYTHON), `${PYTHON} (Debian's Python)`).toBe(true);
    expect(existsSync(GABBI_RUN), 'gabbi-run (apt-get install python3-gabbi)').toBe(true);
    expect(harnessFailure).toBe('');
  });

  for (const [file, expected] of Object.entries(baseline)) {
    it(`${file}: at least ${expected.passed} of ${expected.run} tests pass, as with Placement 8.0.0`, () => {
      const result = results[file];
      expect(result, 'the harness did not run the file').toBeDefined();
      expect(result.error, 'the harness could not run the file').toBeUndefined();
      const newlyFailing = result.failedTests.filter((name) => !expected.failedTests.includes(name));
      const shown = newlyFailing.slice(0, 15).map((name) => `  ${name}: ${result.reasons?.[name] ?? ''}`.slice(0, 300));
      if (newlyFailing.length > shown.length) shown.push(`  and ${newlyFailing.length - shown.length} more`);
      expect(result.run).toBe(expected.run);
      expect(result.passed, `${result.passed} of ${result.run} passed; failing where Placement passes:\n${shown.join('\n')}`).toBeGreaterThanOrEqual(expected.passed);
    });
  }
});
