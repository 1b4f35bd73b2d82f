// What Placement's answers take from Python and its libraries, pinned to recordings of them
// (test/golden/rest/python-behaviour.json, made by scripts/golden/python_behaviour.py): pprint's
// pformat, json.loads' values and error messages, json.dumps' text, jsonschema's choice and wording of
// errors on Placement's own schemas (and src/rest/schemas.ts as a faithful copy of them), and webob's
// Accept negotiation.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { pformat, pyValueRepr } from '../src/rules/python.js';
import { PyJsonError, pyJsonDumps, pyJsonLoads } from '../src/rules/python-json.js';
import { schemaProblem, type Schema } from '../src/rest/json-schema.js';
import * as schemas from '../src/rest/schemas.js';
import { acceptableOffers, isValidAccept } from '../src/rest/accept.js';
import { decode, schemaOf } from './python-recorded.js';

const golden = JSON.parse(readFileSync(new URL('./golden/rest/python-behaviour.json', import.meta.url), 'utf8'));

describe("Python's behaviour, as Placement's answers show it", () => {
  it('pprint.pformat and repr', () => {
    for (const c of golden.pformat) {
      const value = decode(c.value);
      expect(pyValueRepr(value)).toBe(c.repr);
      expect(pformat(value, c.width)).toBe(c.pformat);
    }
  });

  it("json.loads' values and error messages, and json.dumps", () => {
    for (const c of golden.json) {
      if (c.error !== undefined) {
        expect(() => pyJsonLoads(c.text), JSON.stringify(c.text)).toThrow(new PyJsonError(c.error));
        continue;
      }
      const value = pyJsonLoads(c.text);
      expect(pyValueRepr(value)).toBe(pyValueRepr(decode(c.value)));
      expect(pyJsonDumps(value)).toBe(c.dumps);
    }
  });

  it("src/rest/schemas.ts holds Placement's schemas, keys in Placement's order", () => {
    const ours = schemas as unknown as Record<string, Schema>;
    const names = Object.keys(golden.schemas).filter((name) => name in ours);
    expect(names.length).toBeGreaterThan(15);
    for (const name of names) {
      const theirs = schemaOf(golden.schemas[name]);
      expect(ours[name], name).toEqual(theirs);
      expect(JSON.stringify(ours[name]), name).toBe(JSON.stringify(theirs));
    }
  });

  it("jsonschema's error, as str() prints the one it picks", () => {
    for (const c of golden.jsonschema) expect(schemaProblem(decode(c.instance), schemaOf(golden.schemas[c.schema])), `${c.schema} ${JSON.stringify(c.instance)}`).toBe(c.error);
  });

  it("webob's Accept negotiation", () => {
    for (const c of golden.accept) {
      expect(isValidAccept(c.header), c.header).toBe(c.valid);
      expect(acceptableOffers(c.header, c.offers), c.header).toEqual(c.acceptable);
    }
  });
});
