// A mirror is written only into an empty database or the mirror of the same upstream: `sync` and
// `serve --upstream` refuse, in one line that says how to proceed, a database holding an operator's
// own data or another upstream's mirror, and change nothing in it; --replace-db says the mirror is
// to replace its content. The upstream is recognised by its endpoint, whatever credentials reach it.
import { afterEach, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { openDatabase } from '../src/db/client.js';
import { importSnapshot } from '../src/modules/snapshot/snapshot.service.js';
import { recording, startFakePlacement } from './fake-placement.js';
import { demoCloud, tempDbFile } from './helpers.js';

const rec = recording();
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const run = (args: string[]) =>
  promisify(execFile)(process.execPath, ['--import', 'tsx', 'src/main.ts', ...args], { env: { ...process.env, OS_CLOUD: '', OS_AUTH_URL: '' } }).then(
    (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
    (e) => ({ code: e.code as number, stdout: e.stdout as string, stderr: e.stderr as string }),
  );

const providerNames = (file: string) => {
  const db = openDatabase(file);
  const names = (db.sqlite.prepare('SELECT name FROM resource_providers ORDER BY name').all() as { name: string }[]).map((r) => r.name);
  db.close();
  return names;
};

describe('the database a mirror writes into', () => {
  it("sync refuses an operator's standalone database and another upstream's mirror, changing nothing; --replace-db replaces; the same upstream with other credentials is fine", async () => {
    const [one, two] = await Promise.all([startFakePlacement(rec), startFakePlacement(rec)]);
    cleanups.push(() => one.close(), () => two.close());
    const file = tempDbFile();
    const db = openDatabase(file);
    importSnapshot(db, demoCloud());
    db.close();
    const standalone = providerNames(file);

    const refused = await run(['sync', '--db', file, '--upstream', one.url, '--upstream-token', 'admin']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      `placement-gql: ${file} holds data that is not a mirror of Placement (33 providers, 10 consumers, 10 custom traits, 2 custom resource classes, 7 flavors): give another --db FILE for the mirror, or --replace-db to replace its content with the mirror.\n`,
    );
    expect(providerNames(file)).toEqual(standalone);
    expect(one.requests).toEqual([]);

    const replaced = await run(['sync', '--db', file, '--upstream', one.url, '--upstream-token', 'admin', '--replace-db']);
    expect(replaced.code).toBe(0);
    expect(providerNames(file)).toEqual(['cn1', 'cn1_pf0', 'cn2', 'nfs']);

    const other = await run(['sync', '--db', file, '--upstream', two.url, '--upstream-token', 'admin']);
    expect(other.code).toBe(1);
    expect(other.stderr).toBe(`placement-gql: ${file} is the mirror of Placement at ${one.url}, not of ${two.url}: give another --db FILE for this upstream, or --replace-db to make ${file} its mirror (its content is then replaced).\n`);
    expect(two.requests).toEqual([]);

    const again = await run(['sync', '--db', file, '--upstream', one.url.replace('http://', 'http://sync:pw@') + '/', '--upstream-token', 'admin']);
    expect(again.code).toBe(0);
  }, 60_000);

  it('serve --upstream refuses to start on a standalone database', async () => {
    const fake = await startFakePlacement(rec);
    cleanups.push(() => fake.close());
    const file = tempDbFile();
    const db = openDatabase(file);
    importSnapshot(db, demoCloud());
    db.close();
    const served = await run(['serve', '--db', file, '--port', '0', '--upstream', fake.url, '--upstream-token', 'admin']);
    expect(served.code).toBe(1);
    expect(served.stdout).not.toContain('GraphiQL');
    expect(served.stderr).toMatch(new RegExp(`^placement-gql: ${file} holds data that is not a mirror of Placement \\(33 providers.*--replace-db to replace its content with the mirror\\.\\n$`));
    expect(fake.requests).toEqual([]);
  }, 30_000);
});
