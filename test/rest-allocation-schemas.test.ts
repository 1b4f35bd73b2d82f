// src/rest/allocation-schemas.ts holds Placement 8.0.0's schemas for allocations, usages, the
// reshaper and the allocation candidates' query string, keys in Placement's order (the order
// jsonschema finds errors in), and jsonschema's error on each is the one Python gives: both pinned to
// test/golden/rest/allocation-schemas.json (made by scripts/golden/allocation_schemas.py).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as schemas from '../src/rest/allocation-schemas.js';
import { schemaProblem, type Schema } from '../src/rest/json-schema.js';
import { decode, schemaOf } from './python-recorded.js';

const golden = JSON.parse(readFileSync(new URL('./golden/rest/allocation-schemas.json', import.meta.url), 'utf8'));

/** Ours by Placement's name: exported under the same name, or the candidates' query schema of its microversion. */
function ours(name: string): Schema | undefined {
  const candidates = /^GET_SCHEMA_1_(\d+)$/.exec(name);
  if (candidates) return schemas.allocationCandidatesQuerySchema(Number(candidates[1]));
  return (schemas as unknown as Record<string, Schema>)[name];
}

describe("Placement's schemas for allocations, usages, the reshaper and candidates", () => {
  it('are copied with their keys in Placement order', () => {
    const compared = Object.keys(golden.schemas).filter((name) => ours(name) !== undefined);
    expect(compared.length).toBeGreaterThanOrEqual(24);
    for (const name of compared) {
      const theirs = schemaOf(golden.schemas[name]);
      expect(ours(name), name).toEqual(theirs);
      expect(JSON.stringify(ours(name)), name).toBe(JSON.stringify(theirs));
    }
  });

  it("get jsonschema's error as str() prints the one it picks", () => {
    for (const c of golden.jsonschema) expect(schemaProblem(decode(c.instance), schemaOf(golden.schemas[c.schema])), `${c.schema} ${JSON.stringify(c.instance)}`).toBe(c.error);
  });
});
