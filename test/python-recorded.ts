// The encoding of Python values in the recordings of scripts/golden (python_behaviour.py and
// allocation_schemas.py), read back: floats, big ints and dict order kept.
import { PyFloat, type PyValue } from '../src/rules/python.js';

/** A recorded Python value. */
export function decode(value: any): PyValue {
  if (Array.isArray(value)) return value.map(decode);
  if (value && typeof value === 'object') {
    if ('$float' in value) return new PyFloat(Number(value.$float === 'inf' ? Infinity : value.$float === '-inf' ? -Infinity : value.$float === 'nan' ? NaN : value.$float));
    if ('$int' in value) return BigInt(value.$int);
    if ('$dict' in value) return new Map(value.$dict.map(([k, v]: [string, unknown]) => [k, decode(v)]));
  }
  return value;
}

/** A recorded schema as a plain object (this project's form of schemas). */
export function schemaOf(value: any): any {
  if (Array.isArray(value)) return value.map(schemaOf);
  if (value && typeof value === 'object') {
    if ('$float' in value) return new PyFloat(Number(value.$float));
    if ('$dict' in value) return Object.fromEntries(value.$dict.map(([k, v]: [string, unknown]) => [k, schemaOf(v)]));
  }
  return value;
}
