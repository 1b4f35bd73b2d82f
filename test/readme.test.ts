// What the README shows runs as written against the demo cloud.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { demoCloud, harness } from './helpers.js';

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
const blocks = [...readme.matchAll(/```graphql\n([\s\S]*?)```/g)].map((m) => m[1]);

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
});
