// Nova's servers as mirrored in gateway mode: the instances behind the allocations.
import type { Db } from '../../db/client.js';
import { all, list } from '../../db/sql.js';

export interface ServerRow {
  uuid: string;
  name: string;
  status: string;
  flavor: string | null;
  host: string | null;
  projectId: string;
}

export function serversByUuids(db: Db, uuids: readonly string[]): ServerRow[] {
  return all<ServerRow>(db, 'SELECT uuid, name, status, flavor, host, project_id AS projectId FROM servers WHERE uuid IN (SELECT value FROM json_each(?))', list(uuids));
}
