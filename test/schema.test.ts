import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { printSortedSchema } from '../src/schema.js';

describe('schema.graphql', () => {
  it('equals the schema the code prints, sorted (npm run schema:print updates it)', () => {
    const committed = readFileSync(new URL('../schema.graphql', import.meta.url), 'utf8');
    expect(printSortedSchema()).toBe(committed);
  });

  it('describes every type and field', () => {
    const undocumented: string[] = [];
    const printed = printSortedSchema().split('\n');
    printed.forEach((line, i) => {
      const declaration = /^(type|input|enum|union|interface|scalar) /.test(line) || /^  [a-zA-Z]+[:(]/.test(line);
      if (declaration && !/"""|"$/.test(printed[i - 1] ?? '')) undocumented.push(line.trim());
    });
    expect(undocumented).toEqual([]);
  });
});
