// import FILE [--replace] and export [--out FILE]: snapshots in and out of the database.
import { writeFileSync } from 'node:fs';
import { readJsonFile, UsageError, type CommandOptions } from '../../command.js';
import { openDatabase } from '../../db/client.js';
import { exportSnapshot, importSnapshot, isEmpty, SnapshotRejected } from './snapshot.service.js';

export function importCommand({ dbFile, positionals, values }: CommandOptions): number {
  const file = positionals[0];
  if (!file) throw new UsageError('import needs a FILE');
  const replace = values.replace === true;
  const snapshot = readJsonFile(file);
  const db = openDatabase(dbFile);
  const loaded = !isEmpty(db);
  try {
    const summary = importSnapshot(db, snapshot, { replace });
    console.log(`${replace ? 'Replaced the content of' : 'Imported'} ${file} into ${dbFile}: ${JSON.stringify(summary)}`);
    return 0;
  } catch (error) {
    if (!(error instanceof SnapshotRejected)) throw error;
    const { problems } = error;
    // Without --replace an import adds to the database: a snapshot loaded twice clashes with itself on every line.
    const clashes = loaded && !replace ? problems.filter((p) => /exists already|already exists/.test(p.message)) : [];
    const hint = `To replace the database's content with ${file}, add --replace.`;
    if (clashes.length > 0 && clashes.length === problems.length) {
      const [first] = problems;
      console.error(`placement-gql: ${dbFile} already holds what ${file} adds (${problems.length} clash(es), the first: ${first!.path}: ${first!.message}); nothing was changed. ${hint}`);
      return 2;
    }
    console.error(`Rejected ${file}; nothing was changed. ${problems.length} problem(s):`);
    for (const p of problems) console.error(`  ${p.path}: ${p.message}`);
    if (clashes.length > 0) console.error(`${clashes.length} of them are things ${dbFile} holds already. ${hint}`);
    return 2;
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
