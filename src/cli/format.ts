// Output as python-openstackclient (cliff) prints it, so an operator reads the same columns and
// values as from `openstack resource provider ...`: a bordered table (numbers right-aligned,
// judged on the first row, as cliff does), `-f json` (Python's json.dumps with indent 2) or
// `-f value` (values separated by spaces); `-c NAME` keeps only those columns.
import { pyRepr } from '../rules/python.js';

/** A value Python holds as a float: printed 4.0, not 4. */
export class PyFloat {
  constructor(readonly value: number) {}
}

export type Cell = string | number | boolean | null | PyFloat | Cell[] | { [key: string]: Cell };

export const FORMATS = ['table', 'json', 'value'] as const;
export type Format = (typeof FORMATS)[number];

export interface OutputOptions {
  format: Format;
  columns: string[];
}

const floatText = (n: number) => (Number.isInteger(n) ? n.toFixed(1) : String(n));

/** Python's repr of a value, as cliff shows dicts and lists inside a table cell (strings: rules/python.ts). */
export function cellRepr(value: Cell): string {
  if (value === null) return 'None';
  if (value instanceof PyFloat) return floatText(value.value);
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  if (typeof value === 'number') return String(value);
  if (typeof value === 'string') return pyRepr(value);
  if (Array.isArray(value)) return `[${value.map(cellRepr).join(', ')}]`;
  return `{${Object.entries(value)
    .map(([k, v]) => `${pyRepr(k)}: ${cellRepr(v)}`)
    .join(', ')}}`;
}

/** A cell's text: strings as they are, everything else as Python prints it. */
const cellText = (value: Cell) => (typeof value === 'string' ? value : cellRepr(value));

/** JSON as Python's json.dumps(value, indent=2) writes it (floats keep their .0). */
export function pyJson(value: Cell, depth = 0): string {
  const pad = '  '.repeat(depth + 1);
  const close = '  '.repeat(depth);
  if (value instanceof PyFloat) return floatText(value.value);
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    return `[\n${value.map((v) => pad + pyJson(v, depth + 1)).join(',\n')}\n${close}]`;
  }
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value);
    if (entries.length === 0) return '{}';
    return `{\n${entries.map(([k, v]) => `${pad}${JSON.stringify(k)}: ${pyJson(v, depth + 1)}`).join(',\n')}\n${close}}`;
  }
  return JSON.stringify(value);
}

function table(columns: string[], rows: Cell[][], align: ('l' | 'r')[]): string {
  const texts = rows.map((row) => row.map(cellText));
  const widths = columns.map((c, i) => Math.max(c.length, ...texts.map((row) => row[i].length)));
  const border = `+${widths.map((w) => '-'.repeat(w + 2)).join('+')}+`;
  const line = (cells: string[]) => `| ${cells.map((c, i) => (align[i] === 'r' ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join(' | ')} |`;
  return [border, line(columns), border, ...texts.map(line), border].join('\n') + '\n';
}

function select(columns: string[], rows: Cell[][], wanted: string[]): [string[], Cell[][]] {
  if (wanted.length === 0) return [columns, rows];
  for (const name of wanted) if (!columns.includes(name)) throw new FormatError(`-c ${name}: no such column (columns: ${columns.join(', ')})`);
  const keep = columns.flatMap((c, i) => (wanted.includes(c) ? [i] : []));
  return [keep.map((i) => columns[i]), rows.map((row) => keep.map((i) => row[i]))];
}

export class FormatError extends Error {}

/** A list of rows (cliff's Lister). */
export function formatList(allColumns: string[], allRows: Cell[][], options: OutputOptions): string {
  const [columns, rows] = select(allColumns, allRows, options.columns);
  if (options.format === 'json') return pyJson(rows.map((row) => Object.fromEntries(columns.map((c, i) => [c, row[i]])))) + '\n';
  if (options.format === 'value') return rows.map((row) => row.map(cellText).join(' ') + '\n').join('');
  if (rows.length === 0) return '\n';
  const first = rows[0];
  return table(columns, rows, first.map((v) => (typeof v === 'number' || v instanceof PyFloat ? 'r' : 'l')));
}

/** One object, field by field (cliff's ShowOne). */
export function formatOne(allColumns: string[], allValues: Cell[], options: OutputOptions): string {
  const [columns, [values]] = select(allColumns, [allValues], options.columns);
  if (options.format === 'json') return pyJson(Object.fromEntries(columns.map((c, i) => [c, values[i]]))) + '\n';
  if (options.format === 'value') return values.map((v) => cellText(v) + '\n').join('');
  return table(['Field', 'Value'], columns.map((c, i) => [c, values[i]]), ['l', 'l']);
}
