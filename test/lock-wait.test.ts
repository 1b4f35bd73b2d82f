// A write lock held by another process (a worker, a backup, a script): a mutation waits for it without
// holding the event loop, so /health and reads keep answering meanwhile, and after about a second gives
// up with a retryable DATABASE_BUSY error that changed nothing; a lock released meanwhile lets it through.
import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../src/db/client.js';
import { importSnapshot } from '../src/modules/snapshot/snapshot.service.js';
import { createServer } from '../src/server.js';
import { demoCloud, tempDbFile } from './helpers.js';

const file = tempDbFile();
const db = openDatabase(file);
importSnapshot(db, demoCloud());
const yoga = createServer({ db });

/** Another process holding the database's write lock until it is told to let go (or for `holdMs`). */
async function holdWriteLock(holdMs: number) {
  const child = spawn(
    process.execPath,
    ['-e', `const db = new (require('better-sqlite3'))(${JSON.stringify(file)}); db.exec('BEGIN IMMEDIATE'); console.log('locked'); const done = () => { db.exec('COMMIT'); db.close(); process.exit(0); }; setTimeout(done, ${holdMs}); process.stdin.on('data', done);`],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk) => String(chunk).includes('locked') && resolve());
    child.once('exit', (code) => reject(new Error(`the lock holder exited with ${code}`)));
  });
  child.stdin!.on('error', () => {});
  const exited = new Promise((resolve) => child.once('exit', resolve));
  return { release: () => (child.exitCode === null && child.stdin!.write('go\n'), exited) };
}
let holder: { release(): Promise<unknown> } | null = null;
afterEach(async () => {
  await holder?.release();
  holder = null;
});

const post = async (query: string) => {
  const response = await yoga.fetch('http://test/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query }) });
  return { status: response.status, headers: response.headers, body: (await response.json()) as any };
};
const create = (name: string) => post(`mutation { createTrait(input: {name: "${name}"}) { __typename } }`);
const traitCount = (name: string) => (db.sqlite.prepare('SELECT count(*) AS n FROM traits WHERE name = ?').get(name) as { n: number }).n;

describe('a write lock held by another process', () => {
  it('is reported as DATABASE_BUSY, retryable, while /health and reads keep answering', async () => {
    holder = await holdWriteLock(20_000);
    let settled = false;
    const mutation = create('CUSTOM_WHILE_LOCKED').finally(() => (settled = true));
    // Both answered while the mutation still waits for the lock.
    expect((await yoga.fetch('http://test/health')).status).toBe(200);
    expect(settled).toBe(false);
    expect((await post('{ resourceProviders { totalCount } }')).body).toEqual({ data: { resourceProviders: { totalCount: 33 } } });
    expect(settled).toBe(false);
    const answer = await mutation;
    expect(answer.status).toBe(503);
    expect(answer.headers.get('retry-after')).toBe('1');
    expect(answer.body.data).toBeNull();
    expect(answer.body.errors).toEqual([
      {
        message: 'The database is busy: another process holds its write lock. Nothing was changed; retry in a moment.',
        locations: [{ line: 1, column: 12 }],
        path: ['createTrait'],
        extensions: { code: 'DATABASE_BUSY' },
      },
    ]);
    expect(traitCount('CUSTOM_WHILE_LOCKED')).toBe(0);
  });

  it('lets the mutation through, once, when the lock is released while it waits', async () => {
    holder = await holdWriteLock(300);
    const answer = await create('CUSTOM_AFTER_THE_LOCK');
    expect(answer.body).toEqual({ data: { createTrait: { __typename: 'TraitPayload' } } });
    expect(traitCount('CUSTOM_AFTER_THE_LOCK')).toBe(1);
  });
});
