// import FILE [--replace] and export [--out FILE]: snapshots in and out of the database.
import { readFileSync, writeFileSync } from 'node:fs';
import { UsageError, type CommandOptions } from '../../command.js';
import { openDatabase } from '../../db/client.js';
import { decodeUtf8 } from '../../rules/text.js';
import { exportSnapshot, importSnapshot, SnapshotRejected } from './snapshot.service.js';

/** The JSON value of a snapshot file, or why it cannot be read (where, never its content). */
export function readSnapshotFile(file: string): { ok: true; value: unknown } | { ok: false; reason: string } {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why = { ENOENT: 'there is no such file', EACCES: 'permission denied', EISDIR: 'it is a directory' }[code ?? ''] ?? `the system refuses it (${code ?? 'unknown error'})`;
    return { ok: false, reason: `cannot read it: ${why}` };
  }
  const text = decodeUtf8(bytes);
  if (!text.ok) return { ok: false, reason: `it is not UTF-8 text: byte ${text.offset} (line ${text.line}, column ${text.column}) is not part of a UTF-8 character` };
  try {
    return { ok: true, value: JSON.parse(text.text) };
  } catch (error) {
    const position = /at position (\d+)/.exec((error as Error).message);
    let where = ' (it ends too early)';
    if (position) {
      const before = text.text.slice(0, Number(position[1]));
      where = ` at line ${before.split('\n').length}, column ${before.length - before.lastIndexOf('\n')}`;
    } else if (!/end of JSON input/.test((error as Error).message)) where = '';
    return { ok: false, reason: `it is not valid JSON${where}` };
  }
}

export function importCommand({ dbFile, positionals, values }: CommandOptions): number {
  const file = positionals[0];
  if (!file) throw new UsageError('import needs a FILE');
  const replace = values.replace === true;
  const read = readSnapshotFile(file);
  if (!read.ok) {
    console.error(`Rejected ${file}; nothing was changed: ${read.reason}.`);
    return 2;
  }
  const db = openDatabase(dbFile);
  try {
    const summary = importSnapshot(db, read.value, { replace });
    console.log(`${replace ? 'Replaced the content of' : 'Imported'} ${file} into ${dbFile}: ${JSON.stringify(summary)}`);
    return 0;
  } catch (error) {
    if (error instanceof SnapshotRejected) {
      console.error(`Rejected ${file}; nothing was changed. ${error.problems.length} problem(s):`);
      for (const p of error.problems) console.error(`  ${p.path}: ${p.message}`);
      return 2;
    }
    throw error;
  } finally {
    db.close();
  }
}

export function exportCommand({ dbFile, values }: CommandOptions): number {
  const db = openDatabase(dbFile);
  const text = JSON.stringify(exportSnapshot(db), null, 1) + '\n';
  db.close();
  if (typeof values.out === 'string') writeFileSync(values.out, text);
  else process.stdout.write(text);
  return 0;
}
