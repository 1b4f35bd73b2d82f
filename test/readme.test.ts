// What the README shows runs as written against the demo cloud.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../src/db/client.js';
import { importSnapshot } from '../src/modules/snapshot/snapshot.service.js';
import { runOscCommand } from '../src/cli/osc.command.js';
import { demoCloud, harness, tempDbFile } from './helpers.js';

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
const blocks = [...readme.matchAll(/```graphql\n([\s\S]*?)```/g)].map((m) => m[1]);
/** Command lines shown with their output: `$ npx placement-gql ARGS`, then what it prints. */
const sessions = [...readme.matchAll(/```\n\$ npx placement-gql ([^\n]*)\n([\s\S]*?)```/g)].map((m) => ({ args: m[1].split(/\s+/), output: m[2] }));

describe('README examples', () => {
  it('has GraphQL examples', () => expect(blocks.length).toBeGreaterThan(1));

  for (const [n, block] of blocks.entries()) {
    it(`example ${n + 1} runs without errors on the demo cloud`, async () => {
      const h = harness(demoCloud());
      const body = await h.gql(block);
      expect(body.errors).toBeUndefined();
      expect(JSON.stringify(body.data)).not.toContain('"NotFound"');
      expect(JSON.stringify(body.data)).not.toContain('"InvalidInput"');
    });
  }

  it('the curl example sends a valid query', async () => {
    const curl = readme.match(/-d '(\{"query".*\})'/)![1];
    const h = harness(demoCloud());
    const { query } = JSON.parse(curl);
    expect((await h.gql(query)).data.resourceProviders.totalCount).toBeGreaterThan(0);
  });

  it('has command lines with their output', () => expect(sessions.length).toBeGreaterThan(1));

  for (const { args, output } of sessions) {
    it(`placement-gql ${args.join(' ')} prints what the README shows, on the demo cloud`, async () => {
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
