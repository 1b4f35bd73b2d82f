// What the README and docs/ show runs as written against the demo cloud.
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../src/db/client.js';
import { importSnapshot } from '../src/modules/snapshot/snapshot.service.js';
import { runOscCommand } from '../src/cli/osc.command.js';
import { demoCloud, harness, tempDbFile } from './helpers.js';

const root = new URL('../', import.meta.url);
const files = ['README.md', ...readdirSync(new URL('docs/', root)).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)];
const texts = new Map(files.map((file) => [file, readFileSync(new URL(file, root), 'utf8')]));
const blocks = files.flatMap((file) => [...texts.get(file)!.matchAll(/```graphql\n([\s\S]*?)```/g)].map((m, i) => ({ where: `${file} #${i + 1}`, block: m[1] })));
/** Command lines shown with their output: `$ npx placement-gql ARGS`, then what it prints. */
const sessions = files.flatMap((file) =>
  [...texts.get(file)!.matchAll(/```\n\$ npx placement-gql ([^\n]*)\n([\s\S]*?)```/g)].map((m) => ({ file, args: m[1].split(/\s+/), output: m[2] })),
);

describe('README and docs examples', () => {
  it('has GraphQL examples in the README and in docs/', () => {
    expect(blocks.filter((b) => b.where.startsWith('README.md')).length).toBeGreaterThan(1);
    expect(blocks.filter((b) => b.where.startsWith('docs/')).length).toBeGreaterThan(1);
  });

  for (const { where, block } of blocks) {
    it(`${where} runs without errors on the demo cloud`, async () => {
      const h = harness(demoCloud());
      const body = await h.gql(block);
      expect(body.errors).toBeUndefined();
      expect(JSON.stringify(body.data)).not.toContain('"NotFound"');
      expect(JSON.stringify(body.data)).not.toContain('"InvalidInput"');
    });
  }

  it("the README's curl example sends a valid query", async () => {
    const curl = texts.get('README.md')!.match(/-d '(\{"query".*\})'/)![1];
    const h = harness(demoCloud());
    const { query } = JSON.parse(curl);
    expect((await h.gql(query)).data.resourceProviders.totalCount).toBeGreaterThan(0);
  });

  it('has command lines with their output', () => expect(sessions.length).toBeGreaterThan(1));

  for (const { file, args, output } of sessions) {
    it(`placement-gql ${args.join(' ')} prints what ${file} shows, on the demo cloud`, async () => {
      const dbFile = tempDbFile();
      const db = openDatabase(dbFile);
      importSnapshot(db, demoCloud());
      db.close();
      let stdout = '';
      const status = await runOscCommand([...args, '--db', dbFile], 'unused.db', { out: (t) => (stdout += t), err: (t) => (stdout += t) });
      expect(status).toBe(0);
      expect(stdout).toBe(output);
    });
  }
});
