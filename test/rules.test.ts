// The capacity and name rules (src/rules): the in-memory and SQL forms of capacity agree, and the
// name rules hold the limits Placement's schemas set.
import Database from 'better-sqlite3';
import '../src/db/native-objects.js';
import { describe, expect, it } from 'vitest';
import { capacityOf, capacitySql, fits, fitsSql } from '../src/rules/capacity.js';
import { canonicalUuid, customNameProblem, isConsumerType, isUuidLike, traitProblem } from '../src/rules/names.js';

describe('capacity', () => {
  const inventories = [
    { total: 10, reserved: 1, allocationRatio: 1.5, minUnit: 1, maxUnit: 8, stepSize: 2 },
    { total: 7, reserved: 0, allocationRatio: 0.33, minUnit: 1, maxUnit: 7, stepSize: 1 },
    { total: 2147483647, reserved: 5, allocationRatio: 16, minUnit: 1, maxUnit: 2147483647, stepSize: 1 },
  ];

  it('fits() and fitsSql() agree on every amount around the limits', () => {
    const sqlite = new Database(':memory:');
    sqlite.exec('CREATE TABLE i (total INTEGER, reserved INTEGER, min_unit INTEGER, max_unit INTEGER, step_size INTEGER, allocation_ratio REAL)');
    for (const inv of inventories) {
      sqlite.prepare('DELETE FROM i').run();
      sqlite.prepare('INSERT INTO i VALUES (?, ?, ?, ?, ?, ?)').run(inv.total, inv.reserved, inv.minUnit, inv.maxUnit, inv.stepSize, inv.allocationRatio);
      const capacity = capacityOf(inv);
      for (const used of [0, 1, capacity - 2]) {
        for (const amount of [0, 1, 2, 3, 4, 6, 8, 9, capacity - used - 1, capacity - used, capacity - used + 1]) {
          const inSql = sqlite.prepare(`SELECT (${fitsSql('i', '?')}) AS ok FROM i`).get(amount, amount, used, amount) as { ok: number };
          expect(inSql.ok === 1, `${JSON.stringify(inv)} used ${used} amount ${amount}`).toBe(fits({ ...inv, capacity, used }, amount));
        }
      }
      const product = sqlite.prepare(`SELECT ${capacitySql('i')} AS c FROM i`).get() as { c: number };
      expect(Math.trunc(product.c)).toBe(capacity);
    }
  });

  it('truncates as int() does', () => {
    expect(capacityOf({ total: 10, reserved: 1, allocationRatio: 1.5 })).toBe(13);
    expect(capacityOf({ total: 7, reserved: 0, allocationRatio: 0.33 })).toBe(2);
  });
});

describe('names', () => {
  it('custom names: pattern and 255 characters', () => {
    expect(customNameProblem('CUSTOM_A1_')).toBeNull();
    expect(customNameProblem('CUSTOM_a')).toBe('must match ^CUSTOM_[A-Z0-9_]+$');
    expect(customNameProblem('CUSTOM_' + 'A'.repeat(249))).toBe('must be at most 255 characters');
    expect(traitProblem('HW_CPU_X86_AVX2', true)).toBeNull();
    expect(traitProblem('FOO', false)).toContain('must start with CUSTOM_');
  });

  it('consumer types and uuids', () => {
    expect(isConsumerType('MIGRATION')).toBe(true);
    expect(isConsumerType('migration')).toBe(false);
    expect(isConsumerType('A'.repeat(256))).toBe(false);
    expect(canonicalUuid('6A8F40E853195D5EECB6DE64C990ABCD')).toBe('6a8f40e8-5319-5d5e-ecb6-de64c990abcd');
    expect(canonicalUuid('{6a8f40e8-5319-5d5e-ecb6-de64c990abcd}')).toBeNull();
    expect(isUuidLike('{urn:uuid:6a8f40e8-5319-5d5e-ecb6-de64c990abcd}')).toBe(true);
  });
});
