// The benchmark's cloud generator writes, for a seed and a size, the very file OpenStack Placement's oracle
// generator (gen_scenario.py) writes: the digests below were recorded from it
// (`python3 gen_scenario.py SEED SIZE | sha256sum`).
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { generateScenario, scenarioText } from '../bench/generate.js';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe('bench/generate', () => {
  it.each([
    [1, 50, '5677749a652c6e4a972d1eb80a3998ddfd87709905da42e5704105781f5063a6'],
    [4, 200, '2d7a37aa6b5f7cca7be7af8b0d1e0be012e664cb2cd14c03793d3bb9de0fd021'],
  ])('seed %i, %i roots: byte for byte the oracle generator\'s file', (seed, size, digest) => {
    expect(sha256(scenarioText(seed, size))).toBe(digest);
  });

  it('gives the cloud the bench times: roots, trees, allocations and the tagged queries', () => {
    const scn = generateScenario(1, 50) as any;
    expect(scn.providers.filter((p: any) => p.parent === null)).toHaveLength(50);
    expect(Object.keys(scn.allocations).length).toBeGreaterThan(0);
    expect(new Set(scn.queries.map((q: any) => q.tag))).toContain('ac_basic');
    expect(scenarioText(1, 50)).toBe(scenarioText(1, 50));
    expect(scenarioText(2, 50)).not.toBe(scenarioText(1, 50));
  });

  it('refuses a size below one', () => {
    expect(() => generateScenario(1, 0)).toThrow('SIZE must be an integer >= 1');
  });
});
