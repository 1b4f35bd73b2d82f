// How `openstack` output is compared with a recording of it against the real Placement: tables or
// -f json parsed into rows, generations left out, rows as a set, lists inside a cell sorted (Placement
// prints traits, classes and candidates in Python's set order).
import { expect } from 'vitest';

/** Python's repr of a dict or list as JSON (the demo cloud's strings hold no quotes). */
const fromRepr = (text: string) => JSON.parse(text.replace(/'/g, '"').replace(/\bNone\b/g, 'null').replace(/\bTrue\b/g, 'true').replace(/\bFalse\b/g, 'false'));

/** A value with its order taken out: keys sorted, comma-separated names sorted. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => [k, canonical(v)]));
  if (typeof value === 'string' && /^[{[]/.test(value)) return canonical(fromRepr(value));
  if (typeof value === 'string' && /^[^ ,]+(,[^ ,]+)+$/.test(value)) return value.split(',').sort().join(',');
  return value;
}

/** Columns and rows of a table (or of -f json), rows as canonical JSON strings. */
export function parse(text: string, json: boolean): { columns: string[]; rows: Record<string, unknown>[] } {
  if (text === '\n') return { columns: [], rows: [] };
  if (json) {
    const value = JSON.parse(text);
    const list = Array.isArray(value) ? value : Object.entries(value).map(([Field, Value]) => ({ Field, Value }));
    return { columns: Object.keys(list[0] ?? {}), rows: list };
  }
  const lines = text.trimEnd().split('\n');
  expect(lines[0]).toMatch(/^\+[-+]+\+$/);
  const cells = (line: string) => line.slice(2, -2).split(' | ').map((c) => c.trim());
  const columns = cells(lines[1]);
  return { columns, rows: lines.slice(3, -1).map((line) => Object.fromEntries(cells(line).map((c, i) => [columns[i], /^\d+(\.\d+)?$/.test(c) ? Number(c) : c]))) };
}

export function comparable(text: string, json: boolean) {
  const { columns, rows } = parse(text, json);
  const clean = rows.map((row) => {
    const copy: Record<string, unknown> = { ...row };
    delete copy.generation;
    if (copy.Field === 'generation') copy.Value = 'G';
    delete copy['#'];
    return JSON.stringify(canonical(copy));
  });
  // Candidates: the rows of one allocation request together, requests as a set.
  if (columns.includes('#')) {
    const requests = new Map<unknown, string[]>();
    rows.forEach((row, i) => requests.set(row['#'], [...(requests.get(row['#']) ?? []), clean[i]]));
    return { columns, rows: [...requests.values()].map((r) => r.sort().join(' + ')).sort() };
  }
  return { columns, rows: clean.sort() };
}

