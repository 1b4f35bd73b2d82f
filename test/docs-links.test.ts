// Every relative link of the project's documents leads somewhere: the file exists, and a `#part`
// names a heading of it (GitHub's anchors).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../', import.meta.url));
const documents = ['README.md', 'CONTRIBUTING.md', 'ARCHITECTURE.md', ...readdirSync(join(root, 'docs')).filter((n) => n.endsWith('.md')).map((n) => `docs/${n}`)];

/** Text outside fenced code blocks and inline code, where a link is a link. */
const prose = (text: string) => text.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const found = new Set<string>();
  for (const [, heading] of prose(text).matchAll(/^#{1,6} +(.+?) *#*$/gm)) {
    const slug = heading
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/ /g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    found.add(n ? `${slug}-${n}` : slug);
  }
  return found;
}

/** The relative links of a document: `[text](target)`, without web addresses. */
const links = (text: string) => [...prose(text).matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]).filter((t) => !/^[a-z][a-z+.-]*:/i.test(t));

function broken(document: string): string[] {
  const text = readFileSync(join(root, document), 'utf8');
  const problems: string[] = [];
  for (const link of links(text)) {
    const [path, anchor] = link.split('#');
    const target = path ? join(dirname(join(root, document)), decodeURIComponent(path)) : join(root, document);
    if (!existsSync(target)) problems.push(`${document}: ${link}: no file ${relative(root, target)}`);
    else if (anchor && (statSync(target).isDirectory() || !target.endsWith('.md') || !anchors(readFileSync(target, 'utf8')).has(anchor)))
      problems.push(`${document}: ${link}: no heading #${anchor} in ${relative(root, target)}`);
  }
  return problems;
}

describe('links between the documents', () => {
  it('finds anchors as GitHub makes them', () => {
    expect(anchors("# Provider config (Nova's provider.yaml)\n## Node.js versions\n```\n# not a heading\n```\n## Node.js versions")).toEqual(
      new Set(['provider-config-novas-provideryaml', 'nodejs-versions', 'nodejs-versions-1']),
    );
    expect(links('[a](docs/api.md#x) [b](https://example.org) `[c](no.md)`')).toEqual(['docs/api.md#x']);
  });

  it('finds the map of the docs in the README', () => expect(links(readFileSync(join(root, 'README.md'), 'utf8')).length).toBeGreaterThan(10));

  for (const document of documents) {
    it(`${document}: every relative link resolves`, () => expect(broken(document)).toEqual([]));
  }
});
