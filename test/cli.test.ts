// The command line as an operator meets it: help, one-line usage errors, and a reader that stops early.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDbFile } from './helpers.js';

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
    expect(result.stderr.trim().split('\n')).toEqual(['placement-gql: unknown flag --bogus for export', "See 'placement-gql --help'."]);
  });

  it('--version prints the package version', () => {
    const result = run(['--version']);
    expect(result.status).toBe(0);
    expect(result.stdout).toBe(`placement-gql ${JSON.parse(readFileSync('package.json', 'utf8')).version}\n`);
  });

  it('lets a pipe close early (schema | head)', () => {
    const result = run(['schema'], ' | head -1; exit ${PIPESTATUS[0]}');
    expect(result.status).toBe(0);
    expect(result.stderr).not.toContain('EPIPE');
  });
});

/** What an operator reads for a mistake: one line on stderr, in the command line's words. */
function oneLine(result: { status: number | null; stderr: string }, status = 1): string {
  expect(result.status, result.stderr).toBe(status);
  const lines = result.stderr.trim().split('\n');
  expect(lines, result.stderr).toHaveLength(1);
  // No stack frame, no JavaScript error name, no GraphQL variable.
  expect(lines[0]).not.toMatch(/\.[jt]s:\d+|\(node:|^\w*Error\b|Variable "\$|got invalid value/);
  return lines[0]!;
}

describe("an operator's mistakes, each answered in one line with what fixes it", () => {
  it('a flag misspelt: the one meant', () => {
    expect(oneLine(run(['serve', '--prot', '4001']))).toBe('placement-gql: unknown flag --prot for serve; did you mean --port?');
    expect(oneLine(run(['import', 'x.json', '--replce']))).toBe('placement-gql: unknown flag --replce for import; did you mean --replace?');
  });

  it('import of a file that is not there, or is a directory', () => {
    expect(oneLine(run(['import', '/nonexistent/cloud.json', '--db', tempDbFile()]))).toBe('placement-gql: cannot read /nonexistent/cloud.json: no such file');
    expect(oneLine(run(['import', tmpdir(), '--db', tempDbFile()]))).toBe(`placement-gql: cannot read ${tmpdir()}: it is a directory`);
  });

  it('import of broken JSON: the file, the line and the column', () => {
    const file = tempDbFile('cloud.json');
    writeFileSync(file, '{\n  "providers": [\n    {"uuid": "7f000001-0000-4000-8000-000000000001", "name": "a", "parent": None}\n  ]\n}\n');
    expect(oneLine(run(['import', file, '--db', tempDbFile()]))).toBe(`placement-gql: ${file} is not valid JSON at line 3, column 77: Unexpected token 'N'`);
    writeFileSync(file, '{"providers": [\n  {"uuid": "7f000001-0000-4000-8000-000000000001", "name": "a",}\n]}');
    expect(oneLine(run(['import', file, '--db', tempDbFile()]))).toBe(`placement-gql: ${file} is not valid JSON at line 2, column 64: Expected double-quoted property name`);
    writeFileSync(file, '{"providers": [');
    expect(oneLine(run(['import', file, '--db', tempDbFile()]))).toBe(`placement-gql: ${file} is not valid JSON at line 1, column 16: Unexpected end of JSON input`);
  });

  it('import into a database that holds the snapshot already: --replace', () => {
    const dbFile = tempDbFile();
    expect(run(['import', 'demo/demo-cloud.json', '--db', dbFile]).status).toBe(0);
    expect(oneLine(run(['import', 'demo/demo-cloud.json', '--db', dbFile]), 2)).toMatch(
      new RegExp(`^placement-gql: ${dbFile} already holds what demo/demo-cloud.json adds \\(\\d+ clash\\(es\\), the first: providers\\.0\\.uuid: .*\\); nothing was changed\\. To replace the database's content with demo/demo-cloud\\.json, add --replace\\.$`),
    );
  });

  it('a --db the database cannot be in', () => {
    expect(oneLine(run(['export', '--db', '/nonexistent/dir/placement.db']))).toBe('placement-gql: cannot use the database: Cannot open database because the directory does not exist; check --db or PLACEMENT_DB.');
    expect(oneLine(run(['export', '--db', 'README.md']))).toBe('placement-gql: cannot use the database: file is not a database (SQLITE_NOTADB); check --db or PLACEMENT_DB.');
  });

  it("osc-placement's commands name the value refused, not GraphQL's variables", () => {
    const dbFile = tempDbFile();
    expect(run(['import', 'demo/demo-cloud.json', '--db', dbFile]).status).toBe(0);
    expect(oneLine(run(['resource', 'provider', 'show', 'not-a-uuid', '--db', dbFile]))).toBe('"not-a-uuid" is not a UUID (8-4-4-4-12 hex digits)');
    expect(oneLine(run(['capacity', 'show', '--member-of', 'nope', '--db', dbFile]))).toBe('"nope" is not a UUID (8-4-4-4-12 hex digits)');
    expect(oneLine(run(['capacity', 'show', '--resource', 'VCPU=99999999999', '--db', dbFile]))).toBe('99999999999 is too large: at most 2147483647');
    // Placement's own words where the command asks Placement's API, as openstack prints them.
    expect(oneLine(run(['resource', 'provider', 'list', '--member-of', 'nope', '--db', dbFile]))).toBe("Invalid query string parameters: Expected 'member_of' parameter to contain valid UUID(s). Got: nope (HTTP 400)");
  });

  it.each([1, 2])('a port in use (%i worker(s)): which port, and --port', async (workers) => {
    const taken = createNetServer();
    const port = await new Promise<number>((resolve) => taken.listen(0, '127.0.0.1', () => resolve((taken.address() as AddressInfo).port)));
    try {
      const server = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', 'serve', '--quiet', '--workers', String(workers), '--db', tempDbFile(), '--port', String(port)], { stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      server.stderr.on('data', (chunk) => (stderr += chunk));
      const status = await new Promise<number | null>((resolve) => server.once('exit', resolve));
      expect(oneLine({ status, stderr })).toBe(`placement-gql: port ${port} on 127.0.0.1 is in use by another program (another placement-gql?); stop it, or serve on another port with --port N`);
    } finally {
      taken.close();
    }
  });
});
