// The command line as an operator meets it: help, one-line usage errors, and a reader that stops early.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const run = (args: string[], input?: string) =>
  spawnSync('bash', ['-c', `${process.execPath} --import tsx src/main.ts ${args.join(' ')}${input ?? ''}`], { encoding: 'utf8' });

describe('placement-gql command line', () => {
  it.each([['--help'], ['-h'], ['help'], ['serve --help']])('%s prints the usage and exits 0', (args) => {
    const result = run([args]);
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('Usage:');
  });

  it('COMMAND --help shows that command alone', () => {
    const result = run(['import', '--help']);
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('placement-gql import FILE [--db FILE] [--replace]');
    expect(result.stdout).not.toContain('placement-gql serve');
    expect(run(['serve', '-h']).stdout).toContain('Upstream options');
  });

  it('refuses a port that is not a number in one line, exit 1', () => {
    const result = run(['serve', '--port', 'abc']);
    expect(result.status).toBe(1);
    expect(result.stderr.trim().split('\n')).toEqual(["placement-gql: --port must be a whole number from 0 to 65535, not 'abc'", "See 'placement-gql --help'."]);
  });

  it.each([['--port', '70000'], ['--workers', '0'], ['--max-streams', 'x'], ['--host', '0.0.0.0'], ['--upstream', 'http://127.0.0.1:9', '--upstream-token', 't', '--sync-interval', '0']])(
    'serve %s %s ...: refused before the database is opened, which is neither created nor loaded',
    (...flags) => {
      const dir = mkdtempSync(join(tmpdir(), 'placement-gql-cli-'));
      const result = run(['serve', '--demo', '--db', join(dir, 'refused.db'), ...flags]);
      expect(result.status, result.stderr).toBe(1);
      expect(readdirSync(dir)).toEqual([]);
    },
  );

  it('refuses an unknown flag without a stack trace, exit 1', () => {
    const result = run(['export', '--bogus']);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain("Unknown option '--bogus'");
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it('lets a pipe close early (schema | head)', () => {
    const result = run(['schema'], ' | head -1; exit ${PIPESTATUS[0]}');
    expect(result.status).toBe(0);
    expect(result.stderr).not.toContain('EPIPE');
  });
});
