// Output as python-openstackclient (cliff) prints it, so an operator reads the same columns and
// values as from `openstack resource provider ...`: a bordered table (prettytable: numbers
// right-aligned, judged on the first row; --max-width wraps cells as cliff and textwrap do),
// `-f json` (json.dumps, indent 2), `-f yaml` (PyYAML's safe_dump), `-f csv` (lists), `-f shell`
// (single objects), `-f value`; `-c NAME` keeps those columns; --sort-column sorts lists.
import { PyFloat, pyRepr, pyWrap } from '../rules/python.js';

/** A cell; a PyFloat is a value Python holds as a float: printed 4.0, not 4. */
export type Cell = string | number | boolean | null | PyFloat | Cell[] | { [key: string]: Cell };

/** cliff's formatters: lists (Lister) and single objects (ShowOne) have different ones. */
export const LIST_FORMATS = ['csv', 'json', 'table', 'value', 'yaml'] as const;
export const ONE_FORMATS = ['json', 'shell', 'table', 'value', 'yaml'] as const;
export type Format = (typeof LIST_FORMATS)[number] | (typeof ONE_FORMATS)[number];

export interface OutputOptions {
  format: Format;
  columns: string[];
  sortColumns?: string[];
  sortDescending?: boolean;
  /** cliff's --max-width: wrap table cells so a row fits; 0 = no limit. */
  maxWidth?: number;
  /** -f json --noindent */
  noIndent?: boolean;
  /** -f shell --prefix */
  prefix?: string;
}

export class FormatError extends Error {}

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

/** str() of a value: strings as they are, everything else as Python prints it. */
const cellText = (value: Cell) => (typeof value === 'string' ? value : cellRepr(value));

/** JSON as Python's json.dumps(value, indent=2) writes it (floats keep their .0); indent null: one line. */
export function pyJson(value: Cell, depth = 0, indent: boolean = true): string {
  const pad = indent ? '\n' + '  '.repeat(depth + 1) : '';
  const close = indent ? '\n' + '  '.repeat(depth) : '';
  const comma = indent ? ',' : ', ';
  if (value instanceof PyFloat) return floatText(value.value);
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    return `[${value.map((v) => pad + pyJson(v, depth + 1, indent)).join(comma)}${close}]`;
  }
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value);
    if (entries.length === 0) return '{}';
    return `{${entries.map(([k, v]) => `${pad}${JSON.stringify(k)}: ${pyJson(v, depth + 1, indent)}`).join(comma)}${close}}`;
  }
  return JSON.stringify(value);
}

// PyYAML's implicit resolvers (YAML 1.1): a string they would read as something else is quoted.
const YAML_IMPLICIT = [
  /^(?:yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$/,
  /^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$/,
  /^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$/,
  /^(?:~|null|Null|NULL|)$/,
  /^(?:[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]|[0-9][0-9][0-9][0-9]-[0-9][0-9]?-[0-9][0-9]?(?:[Tt]|[ \t]+)[0-9][0-9]?:[0-9][0-9]:[0-9][0-9](?:\.[0-9]*)?(?:[ \t]*(?:Z|[-+][0-9][0-9]?(?::[0-9][0-9])?))?)$/,
  /^(?:<<|=)$/,
];

/** A string as PyYAML writes it: plain when it reads back as the same string, else single-quoted. */
function yamlString(s: string): string {
  const plain =
    !YAML_IMPLICIT.some((re) => re.test(s)) &&
    !/^[#,[\]{}&*!|>'"%@`]/.test(s) &&
    !/^[-?:](?: |$)/.test(s) &&
    !/: |:$| #/.test(s) &&
    !/^\s|\s$/.test(s) &&
    /^[\x20-\x7e]*$/.test(s);
  return plain ? s : `'${s.replace(/'/g, "''")}'`;
}

const yamlScalar = (value: Cell): string => {
  if (value === null) return 'null';
  if (value instanceof PyFloat) return floatText(value.value);
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number') return String(value);
  return yamlString(value as string);
};

const isEmptyCollection = (v: Cell) => (Array.isArray(v) ? v.length === 0 : v !== null && typeof v === 'object' && !(v instanceof PyFloat) && Object.keys(v).length === 0);
const isCollection = (v: Cell): v is Cell[] | { [key: string]: Cell } => v !== null && typeof v === 'object' && !(v instanceof PyFloat) && !isEmptyCollection(v);

/** yaml.safe_dump(value, default_flow_style=False): keys sorted, lists inside mappings not indented. */
export function pyYaml(value: Cell, indent = ''): string {
  if (!isCollection(value)) return (isEmptyCollection(value) ? (Array.isArray(value) ? '[]' : '{}') : yamlScalar(value)) + '\n';
  if (Array.isArray(value))
    return value
      .map((item) => {
        if (!isCollection(item)) return `${indent}- ${pyYaml(item)}`;
        const inner = pyYaml(item, indent + '  ');
        return `${indent}- ${inner.slice(indent.length + 2)}`;
      })
      .join('');
  return Object.keys(value)
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    .map((key) => {
      const v = value[key];
      if (!isCollection(v)) return `${indent}${yamlString(key)}: ${pyYaml(v)}`;
      return `${indent}${yamlString(key)}:\n${pyYaml(v, Array.isArray(v) ? indent : indent + '  ')}`;
    })
    .join('');
}

/** csv.writer(quoting=QUOTE_NONNUMERIC, escapechar='\\') as cliff's csv formatter uses it. */
function csvRow(row: Cell[]): string {
  return (
    row
      .map((v) => {
        if (typeof v === 'number' || typeof v === 'boolean' || v instanceof PyFloat) return cellText(v);
        const text = v === null ? '' : cellText(v);
        return `"${text.replace(/\\/g, '\\\\').replace(/"/g, '""')}"`;
      })
      .join(',') + '\n'
  );
}

/** The lines of a table cell wrapped to its column's width, as prettytable does. */
const cellLines = (text: string, width: number) => text.split('\n').flatMap((line) => (line.length > width ? pyWrap(line, width) : [line]));

/** prettytable's get_string(); maxWidths as cliff's _assign_max_widths sets them. */
function table(columns: string[], texts: string[][], align: ('l' | 'r')[], maxWidths: (number | undefined)[] = []): string {
  const size = (t: string) => Math.max(...t.split('\n').map((l) => l.length));
  const widths = columns.map((c, i) => Math.max(c.length, ...texts.map((row) => (maxWidths[i] === undefined ? size(row[i]) : Math.min(size(row[i]), maxWidths[i]!)))));
  const border = `+${widths.map((w) => '-'.repeat(w + 2)).join('+')}+`;
  const line = (cells: string[]) => `| ${cells.map((c, i) => (align[i] === 'r' ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join(' | ')} |`;
  const rows = texts.flatMap((row) => {
    const cells = row.map((t, i) => cellLines(t, widths[i]));
    const height = Math.max(...cells.map((c) => c.length));
    return Array.from({ length: height }, (_, k) => line(cells.map((c) => c[k] ?? '')));
  });
  return [border, line(columns), border, ...rows, border].join('\n') + '\n';
}

/** cliff's TableFormatter._assign_max_widths: the widths that make a table fit in maxWidth, if it does not. */
function fitWidths(columns: string[], texts: string[][], align: ('l' | 'r')[], maxWidth: number, minWidth: number): (number | undefined)[] {
  if (!(maxWidth > 0)) return [];
  const firstLine = table(columns, texts, align).split('\n')[0];
  if (firstLine.length <= maxWidth) return [];
  const usable = Math.max(0, maxWidth - 1 - 3 * columns.length);
  const optimal = Math.max(0, Math.floor(usable / columns.length));
  const fieldWidths = firstLine.split('+').slice(1, -1).map((s) => Math.max(0, s.length - 2));
  const shrink: number[] = [];
  let remaining = usable;
  fieldWidths.forEach((w, i) => (w <= optimal ? (remaining -= w) : shrink.push(i)));
  const widths: (number | undefined)[] = [];
  const shrinkTo = Math.floor(remaining / shrink.length);
  for (const i of shrink.slice(0, -1)) {
    widths[i] = Math.max(minWidth, shrinkTo);
    remaining -= shrinkTo;
  }
  widths[shrink.at(-1)!] = Math.max(minWidth, remaining);
  return widths;
}

const pyStrRepr = (names: string[]) => `[${names.map(pyRepr).join(', ')}]`;
const pyTupleRepr = (names: string[]) => (names.length === 1 ? `(${pyRepr(names[0])},)` : `(${names.map(pyRepr).join(', ')})`);

/** cliff's -c: the known columns asked for, in the command's order; unknown ones are ignored unless none is known. */
function select(columns: string[], rows: Cell[][], wanted: string[]): [string[], Cell[][]] {
  if (wanted.length === 0) return [columns, rows];
  const keep = columns.flatMap((c, i) => (wanted.includes(c) ? [i] : []));
  if (keep.length === 0) throw new FormatError(`No recognized column names in ${pyStrRepr(wanted)}. Recognized columns are ${pyTupleRepr(columns)}.`);
  return [keep.map((i) => columns[i]), rows.map((row) => keep.map((i) => row[i]))];
}

/** Python's ordering of two cells of one column (numbers, or strings by code point); None last. */
function compareCells(a: Cell, b: Cell): number {
  if ((a === null) !== (b === null)) return a === null ? 1 : -1;
  const key = (v: Cell) => (v instanceof PyFloat ? v.value : typeof v === 'boolean' ? Number(v) : v);
  const [x, y] = [key(a), key(b)];
  if (typeof x === 'object' || typeof y === 'object') return 0;
  return x! < y! ? -1 : x! > y! ? 1 : 0;
}

/** cliff's --sort-column (repeatable, the first one first; unknown names ignored). */
function sortRows(columns: string[], rows: Cell[][], options: OutputOptions): Cell[][] {
  const indexes = (options.sortColumns ?? []).filter((c) => columns.includes(c)).map((c) => columns.indexOf(c));
  let sorted = rows;
  for (const index of indexes.reverse()) sorted = [...sorted].sort((a, b) => compareCells(a[index], b[index]) * (options.sortDescending ? -1 : 1));
  return sorted;
}

/** A list of rows (cliff's Lister). */
export function formatList(allColumns: string[], allRows: Cell[][], options: OutputOptions): string {
  const [columns, rows] = select(allColumns, sortRows(allColumns, allRows, options), options.columns);
  const objects = () => rows.map((row) => Object.fromEntries(columns.map((c, i) => [c, row[i]])));
  switch (options.format) {
    case 'json':
      return pyJson(objects(), 0, !options.noIndent) + '\n';
    case 'yaml':
      return pyYaml(objects());
    case 'csv':
      return [columns, ...rows].map(csvRow).join('');
    case 'value':
      return rows.map((row) => row.map(cellText).join(' ') + '\n').join('');
    case 'shell':
      throw new FormatError("-f shell prints one object; lists print as csv, json, table, value or yaml");
    default: {
      if (rows.length === 0) return '\n';
      const align = rows[0].map((v) => (typeof v === 'number' || v instanceof PyFloat ? 'r' : 'l'));
      const texts = rows.map((row) => row.map(cellText));
      return table(columns, texts, align, fitWidths(columns, texts, align, options.maxWidth ?? 0, 8));
    }
  }
}

/** One object, field by field (cliff's ShowOne). */
export function formatOne(allColumns: string[], allValues: Cell[], options: OutputOptions): string {
  const [columns, [values]] = select(allColumns, [allValues], options.columns);
  switch (options.format) {
    case 'json':
      return pyJson(Object.fromEntries(columns.map((c, i) => [c, values[i]])), 0, !options.noIndent) + '\n';
    case 'yaml':
      return columns.map((c, i) => pyYaml({ [c]: values[i] })).join('');
    case 'shell':
      return columns
        .map((c, i) => `${options.prefix ?? ''}${c.toLowerCase().replace(/ /g, '_').replace(/[:-]/g, '_')}="${typeof values[i] === 'string' ? (values[i] as string).replace(/"/g, '\\"') : cellText(values[i])}"\n`)
        .join('');
    case 'value':
      return values.map((v) => cellText(v) + '\n').join('');
    case 'csv':
      throw new FormatError('-f csv prints lists; one object prints as json, shell, table, value or yaml');
    default: {
      const texts = columns.map((c, i) => [c, cellText(values[i])]);
      const align: ('l' | 'r')[] = ['l', 'l'];
      return table(['Field', 'Value'], texts, align, fitWidths(['Field', 'Value'], texts, align, options.maxWidth ?? 0, 16));
    }
  }
}
