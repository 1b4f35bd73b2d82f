// Provider-config YAML as an attacker or a careless operator writes it: the work done grows linearly with
// the document, deep nesting and alias storms are refused or bounded, and a key written twice is named.
import { describe, expect, it } from 'vitest';
import { Lexer } from 'yaml';
import { harness } from './helpers.js';
import { checkDocuments } from '../src/modules/provider-config/provider-config.documents.js';

/** Tokens lexed while `f` runs: every pass over the text counts. */
function tokensLexed(f: () => void): number {
  const lex = Lexer.prototype.lex;
  let count = 0;
  Lexer.prototype.lex = function* (this: Lexer, ...args: Parameters<Lexer['lex']>) {
    for (const token of lex.apply(this, args)) {
      count++;
      yield token;
    }
  };
  try {
    f();
  } finally {
    Lexer.prototype.lex = lex;
  }
  return count;
}

const HEAD = "meta:\n  schema_version: '1.0'\nproviders:\n";
const check = (content: string) => checkDocuments([{ name: 'a.yaml', content }]);

// Shapes that once made the reader lex the whole text again for each flow collection or quoted scalar.
const SHAPES: Record<string, (n: number) => string> = {
  'one-line flow sequences': (n) => '- [a]\n'.repeat(n),
  'flow sequences on one line': (n) => `a: ${'[a] '.repeat(n)}\n`,
  'under-indented flow continuations': (n) => '- [a,\nb]\n'.repeat(n),
  'under-indented quoted continuations': (n) => "- 'a\nb'\n".repeat(n),
  'provider entries with multi-line trait lists': (n) =>
    HEAD + Array.from({ length: n }, (_, i) => `  - identification: {name: cn${i}}\n    traits:\n      additional: [CUSTOM_A,\n      CUSTOM_B]\n`).join(''),
};

describe('provider-config YAML: work linear in the document', () => {
  it.each(Object.entries(SHAPES))('%s: twice the document, at most about twice the tokens lexed', (_name, shape) => {
    const small = tokensLexed(() => check(shape(1000)));
    const large = tokensLexed(() => check(shape(2000)));
    expect(small).toBeGreaterThan(1000);
    expect(large / small).toBeLessThan(2.2);
  });

  it('validates a 10,000-entry document through the API', async () => {
    const h = harness({ providers: [{ uuid: 'abcdef00-0000-4000-8000-000000000001', name: 'cn1', parent: null }] });
    const content = HEAD + Array.from({ length: 10_000 }, (_, i) => `  - {identification: {name: cn${i}}, traits: {additional: [CUSTOM_T${i % 100}]}}\n`).join('');
    const { data } = await h.gql('query($d: [ProviderConfigDocument!]!) { validateProviderConfig(documents: $d) { valid errors { message } } }', {
      d: [{ name: 'big.yaml', content }],
    });
    expect(data.validateProviderConfig).toEqual({ valid: true, errors: [] });
  });

  it('resolves 45,000 aliases in one pass', () => {
    const content = `${HEAD}  - identification: {name: cn1}\n    traits: {additional: [CUSTOM_A]}\nx-anchors:\n  a: &a x\n  b: [${Array(45_000).fill('*a').join(', ')}]\n`;
    const checked = check(content);
    expect(checked.errors).toEqual([]);
    expect(checked.entries.map((e) => e.key)).toEqual(['cn1']);
  });

  it('bounds what merge keys and aliases expand to', () => {
    const chain = 'a0: &a0 {k0: 1}\n' + Array.from({ length: 1_000 }, (_, i) => `a${i + 1}: &a${i + 1} {<<: *a${i}, k${i + 1}: 1}`).join('\n');
    const [error] = check(chain).errors;
    expect(error.rule).toBe('yaml_error');
    expect(error.message).toMatch(/^Not valid YAML at line \d+, column \d+: aliases expand the document beyond 100000 nodes/);
  });
});

describe('provider-config YAML: recursive structures', () => {
  it('refuses a mapping that merges itself, naming the place', () => {
    for (const [content, column] of [
      ['a: &a {<<: *a}\n', 12],
      ['a: &a {b: 1, <<: [*a]}\n', 19],
    ] as const) {
      const [error] = check(content).errors;
      expect(error.message).toBe(`Not valid YAML at line 1, column ${column}: a recursive alias (a node containing itself) is not allowed`);
    }
  });
});

describe('provider-config YAML: nesting', () => {
  const nested = (depth: number) => Array.from({ length: depth }, (_, i) => `${' '.repeat(i)}- `).join('\n') + 'x\n';

  it('refuses a document nested deeper than 400 levels, naming the place, without recursing into it', () => {
    const deep = { [`${'- '.repeat(20_000)}x\n`]: 801, [`${'['.repeat(20_000)}${']'.repeat(20_000)}`]: 401, [`${'{a: '.repeat(20_000)}1${'}'.repeat(20_000)}`]: 1601 };
    for (const [content, column] of Object.entries(deep)) {
      const [error] = check(content).errors;
      expect(error.rule).toBe('yaml_error');
      expect(error.message).toBe(`Not valid YAML at line 1, column ${column}: the document is nested more than 400 levels deep (Nova's YAML reader fails at about 490)`);
    }
    expect(check(nested(401)).errors[0].message).toMatch(/^Not valid YAML at line 401, column 401: the document is nested/);
    // 400 levels are read, as Nova reads them: refused for what the document is, not for its depth.
    expect(check(nested(400)).errors[0].rule).toBe('schema_version_missing');
  });
});

describe('provider-config YAML: a key written twice', () => {
  const U1 = 'abcdef00-0000-4000-8000-000000000001';
  const content = `${HEAD}  - identification: {uuid: ${U1}}\n    inventories:\n      additional:\n        - CUSTOM_LLC:\n            total: 8\n            reserved: 1\n            total: 16\n`;

  it("keeps Nova's verdict (it keeps the last value) and names the key and both lines in a warning", async () => {
    const h = harness({ providers: [{ uuid: U1, name: 'cn1', parent: null }] });
    const { data } = await h.gql('query($d: [ProviderConfigDocument!]!) { validateProviderConfig(documents: $d) { valid errors { rule } warnings { document rule message } } }', {
      d: [{ name: 'dup.yaml', content }],
    });
    expect(data.validateProviderConfig).toEqual({
      valid: true,
      errors: [],
      warnings: [
        {
          document: 'dup.yaml',
          rule: 'duplicate_key',
          message: 'Line 10, column 13: the key "total" is written twice in one mapping (first at line 8). Nova keeps the last value without a word; it is not applied here: write each key once.',
        },
      ],
    });
    expect(check(content).entries[0].inventories.get('CUSTOM_LLC')!.fields.total).toBe(16);
  });

  it('refuses to apply it, changing nothing', async () => {
    const h = harness({ providers: [{ uuid: U1, name: 'cn1', parent: null }] });
    const { data } = await h.gql('mutation($i: ApplyProviderConfigInput!) { applyProviderConfig(input: $i) { ... on ProviderConfigPlan { applied errors { rule } } } }', {
      i: { documents: [{ name: 'dup.yaml', content }] },
    });
    expect(data.applyProviderConfig).toEqual({ applied: false, errors: [{ rule: 'duplicate_key' }] });
    expect(h.db.sqlite.prepare('SELECT count(*) AS n FROM inventories').get()).toEqual({ n: 0 });
  });

  it('a key a mapping overrides from a merge is not a duplicate; keys equal in Python (1 and 1.0) are', () => {
    const merged = `${HEAD}  - identification: {name: cn1}\n    traits: {additional: [CUSTOM_A]}\nx: &x {a: 1}\ny: {<<: *x, a: 2}\n`;
    expect(check(merged).applyProblems).toEqual([]);
    const equal = `${HEAD}  - identification: {name: cn1}\n    traits: {additional: [CUSTOM_A]}\nx: {1: a, 1.0: b}\n`;
    expect(check(equal).applyProblems.map((p) => p.message)).toEqual([
      'Line 6, column 11: the key "1.0" is written twice in one mapping (first at line 6). Nova keeps the last value without a word; it is not applied here: write each key once.',
    ]);
  });
});
