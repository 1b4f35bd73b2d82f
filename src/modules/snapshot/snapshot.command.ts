// import FILE [--replace] and export [--out FILE]: snapshots in and out of the database.
import { readFileSync, writeFileSync } from 'node:fs';
import { UsageError, type CommandOptions } from '../../command.js';
import { openDatabase } from '../../db/client.js';
import { exportSnapshot, importSnapshot, SnapshotRejected } from './snapshot.service.js';

export function importCommand({ dbFile, positionals, values }: CommandOptions): number {
  const file = positionals[0];
  if (!file) throw new UsageError('import needs a FILE');
  const replace = values.replace === true;
  const db = openDatabase(dbFile);
  try {
    const summary = importSnapshot(db, JSON.parse(readFileSync(file, 'utf8')), { replace });
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
