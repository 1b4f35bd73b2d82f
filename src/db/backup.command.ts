// placement-gql backup FILE / restore FILE.
import type { CommandOptions } from '../command.js';
import { BackupError, backupDatabase, restoreDatabase } from './backup.js';

export function backupCommand(restore: boolean) {
  return async ({ dbFile, positionals }: CommandOptions): Promise<number> => {
    const file = positionals[0];
    if (!file) {
      console.error(`placement-gql: ${restore ? 'restore' : 'backup'} needs a FILE\nSee 'placement-gql --help'.`);
      return 1;
    }
    try {
      if (restore) {
        const { pages } = await restoreDatabase(file, dbFile);
        console.log(`Restored ${dbFile} from ${file} (${pages} pages; integrity_check ok).`);
      } else {
        const { pages } = await backupDatabase(dbFile, file);
        console.log(`Backed up ${dbFile} to ${file} (${pages} pages; integrity_check ok).`);
      }
      return 0;
    } catch (error) {
      if (!(error instanceof BackupError)) throw error;
      console.error(`placement-gql: ${error.message}`);
      return 2;
    }
  };
}
