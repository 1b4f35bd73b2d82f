// The one Python-compatibility module against CPython 3.11, the Python of the recorded Placement
// and Nova: each expectation below is what python3 prints for the same call.
import { describe, expect, it } from 'vitest';
import { codePointOrder, pyCollapseSpaces, pyDictRepr, pyInt, pyIntNumber, pyList, pyRepr, pyStrip, pyWrap, pythonFullmatch, pythonSearch } from '../src/rules/python.js';

describe("Python's rules", () => {
  it('textwrap.wrap(): words split after hyphens between letters, long words broken at a hyphen that fits', () => {
    expect(pyWrap('6a8f40e8-5319-5d5e-8a89-ecb6de64c990', 8)).toEqual(['6a8f40e8', '-5319-', '5d5e-', '8a89-', 'ecb6de64', 'c990']);
    expect(pyWrap('6a8f40e8-5319-5d5e-8a89-ecb6de64c990', 18)).toEqual(['6a8f40e8-5319-', '5d5e-8a89-', 'ecb6de64c990']);
    expect(pyWrap('compute-09_numa0_pf0', 8)).toEqual(['compute-', '09_numa0', '_pf0']);
    expect(pyWrap("{'VCPU': 4, 'MEMORY_MB': 8192}", 10)).toEqual(["{'VCPU':", "4, 'MEMORY", "_MB':", '8192}']);
    expect(pyWrap('well-known self-explanatory text--with dashes', 12)).toEqual(['well-known', 'self-', 'explanatory', 'text--with', 'dashes']);
    expect(pyWrap('a  b   c', 1)).toEqual(['a', 'b', 'c']);
  });

  it('int() accepts whitespace, signs, underscores and Unicode digits', () => {
    expect(pyInt(' +07 ')).toBe(7n);
    expect(pyInt('1_000')).toBe(1000n);
    expect(pyInt('\u0663\u0664')).toBe(34n);
    expect(pyInt('\u{1D7D9}')).toBe(1n);
    expect(pyInt('\u00851\u2028')).toBe(1n);
    expect(pyInt('-99999999999999999999')).toBe(-99999999999999999999n);
    expect(pyIntNumber('-0')).toBe(0);
    // int() strips less than str.strip(): U+001C-U+001F are whitespace to strip() but not to int().
    for (const bad of ['1__0', '_1', '1_', '2.0', '', '+', '0x1', '\x1c1', '1\x1f', '\ufeff1']) expect(pyInt(bad), bad).toBeNull();
  });

  it('str.strip() and str.split() use str.isspace(), not JavaScript whitespace', () => {
    expect(pyStrip('\x1c\x85 a b\u3000\t')).toBe('a b');
    expect(pyStrip('\ufeffa\ufeff')).toBe('\ufeffa\ufeff');
    expect(pyCollapseSpaces('  a \n\x1f b\u2028 ')).toBe('a b');
  });

  it('re patterns: Unicode \\d, unescaped dots, $ before a final newline, literal braces', () => {
    expect(pythonFullmatch('\\d+').test('\u0663')).toBe(true);
    expect(pythonFullmatch('a.b').test('a\nb')).toBe(false);
    expect(pythonFullmatch('a.b').test('a\rb')).toBe(true);
    expect(pythonFullmatch('a$\\n').test('a\n')).toBe(true);
    expect(pythonFullmatch('a{x}').test('a{x}')).toBe(true);
    expect(pythonFullmatch('a{,2}').test('aa')).toBe(true);
    expect(pythonFullmatch('(?P<n>x)(?P=n)').test('xx')).toBe(true);
    // re.search: anchored only where the pattern says so.
    expect(pythonSearch('^[1-9][0-9]*$').test('10\n')).toBe(true);
    expect(pythonSearch('^[1-9][0-9]*$').test('10\n\n')).toBe(false);
    expect(pythonSearch('[A-Z]').test('aBc')).toBe(true);
  });

  it('repr() quotes and escapes as Python does', () => {
    expect(pyRepr("it's")).toBe(`"it's"`);
    expect(pyRepr(`it's "x"`)).toBe(`'it\\'s "x"'`);
    expect(pyRepr('a\tb\u2028\u00e9')).toBe("'a\\tb\\u2028\u00e9'");
    expect(pyRepr('\x7f\u00ad\u{1F600}\ud800\\')).toBe("'\\x7f\\xad\u{1F600}\\ud800\\\\'");
    expect(pyList(['a', "b'"])).toBe(`['a', "b'"]`);
    expect(pyDictRepr([['k', 'v']])).toBe("{'k': 'v'}");
  });

  it('sorted() orders by code point', () => {
    expect(['\uff5e', '\u{1F600}', 'a'].sort(codePointOrder)).toEqual(['a', '\uff5e', '\u{1F600}']);
    expect(['ab', 'a', ''].sort(codePointOrder)).toEqual(['', 'a', 'ab']);
  });
});

describe("Python's order in Placement's messages", () => {
  it('lists unexpected query parameters in code point order, as sorted() does', async () => {
    const { readPlacementQuery } = await import('../src/modules/candidates/candidates.query-string.js');
    const query = `resources=VCPU:1&${encodeURIComponent('\u{1F600}x')}=1&${encodeURIComponent('\uff5ex')}=1`;
    expect(() => readPlacementQuery(query, '1.39')).toThrow(expect.objectContaining({ message: expect.stringContaining("'\uff5ex', '\u{1F600}x' do not match any of the regexes") }));
  });
});
