// What a command of the command line receives and returns (commands.ts runs them by name), and the
// errors it reports to the operator in one line.
import { readFileSync } from 'node:fs';
import { jsonErrorIndex } from './rules/json.js';
import { decodeUtf8 } from './rules/text.js';
import { editDistance } from './rules/names.js';

export interface CommandOptions {
  dbFile: string;
  positionals: string[];
  values: Record<string, string | boolean | undefined>;
}

/** A command: its exit status. */
export type Command = (options: CommandOptions) => Promise<number> | number;

/** A wrong command line: printed with a pointer to --help, exit status 1. */
export class UsageError extends Error {}

/** A command that cannot do its work (a file it cannot read, a port in use): one line with what fixes it, exit status 1. */
export class CommandError extends Error {}

/** A file's text; a missing or unreadable file is a CommandError naming it. */
export function readTextFile(file: string): string {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : code === 'EACCES' ? 'permission denied' : (error as Error).message;
    throw new CommandError(`cannot read ${file}: ${why}`);
  }
  // Read as UTF-8 by Node, a byte that is not UTF-8 would become U+FFFD silently.
  const text = decodeUtf8(bytes);
  if (!text.ok) throw new CommandError(`${file} is not UTF-8 text: byte ${text.offset} (line ${text.line}, column ${text.column}) is not part of a UTF-8 character`);
  return text.text;
}

/** A JSON file's content; text that is not JSON is a CommandError naming the file, the line and the column. */
export function readJsonFile(file: string): unknown {
  const text = readTextFile(file);
  try {
    return JSON.parse(text);
  } catch (error) {
    const message = (error as Error).message;
    // V8 names the position of most mistakes (Node 22 and later add the line and column), not of an unexpected character.
    const at = message.startsWith('Unexpected end') ? text.length : Number(message.match(/ at position (\d+)/)?.[1] ?? jsonErrorIndex(text));
    const lines = text.slice(0, at < 0 ? text.length : at).split('\n');
    const what = message
      .replace(/( in JSON)? at position \d+.*$/s, '')
      .replace(/, (\.\.\.)?".*"(\.\.\.)? is not valid JSON$/s, '')
      .replace(/[\u0000-\u001f]/g, (c) => JSON.stringify(c).slice(1, -1));
    throw new CommandError(`${file} is not valid JSON at line ${lines.length}, column ${lines.at(-1)!.length + 1}: ${what}`);
  }
}

/**
 * The words for a refused command line from node:util's parseArgs: an unknown flag with the known one
 * it is closest to, a flag without its value. Other errors keep parseArgs's own message.
 */
export function explainParseArgsError(error: Error & { code?: string }, command: string | undefined, known: string[]): string {
  const of = command ? ` for ${command}` : '';
  const unknown = error.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && error.message.match(/^Unknown option '([^']+)'/)?.[1];
  if (unknown) {
    const name = unknown.replace(/^-+/, '').split('=')[0]!;
    const meant = known.map((k) => ({ k, d: editDistance(name, k, 2) })).filter(({ d }) => d <= 2).sort((a, b) => a.d - b.d)[0]?.k;
    return `unknown flag ${unknown}${of}${meant ? `; did you mean --${meant}?` : ''}`;
  }
  const missing = error.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && error.message.match(/^Option '(-\S+)[^']*' argument (missing|is ambiguous)/)?.[1];
  if (missing) return `${missing}${of} needs a value (${missing}=VALUE if it starts with a dash)`;
  return error.message;
}
