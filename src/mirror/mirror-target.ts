// Which upstream a database is the mirror of. A mirror rewrites the database with what its upstream
// answers, so it takes only an empty database, or one that was the mirror of the same upstream (its
// Placement endpoint, without credentials, recorded as the `placement` row of mirrored_services):
// an operator's own standalone database, or another cloud's mirror, is never written over by mistake.
import type { Db } from '../db/client.js';
import { get } from '../db/sql.js';
import { DatabaseRefused } from '../upstream/failure.js';
import { markService, serviceMark } from './services.store.js';

/** What the database holds of its own, as "3 providers, 2 flavors"; empty when nothing. */
function contents(db: Db): string {
  const count = (sql: string) => get<{ n: number }>(db, sql)!.n;
  const parts: [number, string][] = [
    [count('SELECT COUNT(*) AS n FROM resource_providers'), 'provider'],
    [count('SELECT COUNT(*) AS n FROM consumers'), 'consumer'],
    [count('SELECT COUNT(*) AS n FROM traits WHERE standard = 0'), 'custom trait'],
    [count('SELECT COUNT(*) AS n FROM resource_classes WHERE standard = 0'), 'custom resource class'],
    [count('SELECT COUNT(*) AS n FROM flavors'), 'flavor'],
    [count('SELECT COUNT(*) AS n FROM images'), 'image'],
    [count('SELECT COUNT(*) AS n FROM baremetal_nodes'), 'bare-metal node'],
  ];
  return parts
    .filter(([n]) => n > 0)
    .map(([n, what]) => `${n} ${what}${n === 1 ? '' : what.endsWith('s') ? 'es' : 's'}`)
    .join(', ');
}

/**
 * Makes `db` the mirror of the upstream `identity` (upstreamIdentity of its Placement endpoint):
 * fine when it is already, or empty; refused with DatabaseRefused when it is another upstream's
 * mirror or holds data of its own, unless `replace` says the mirror is to replace its content.
 * With no identity (the endpoint not known yet), only a database with data and no record is refused.
 */
export function claimDatabase(db: Db, identity: string | null, replace = false) {
  db.transaction(() => {
    const recorded = serviceMark(db, 'placement')?.url;
    if (recorded === identity || (identity === null && (recorded || replace))) return;
    if (!replace) {
      if (recorded) {
        throw new DatabaseRefused(
          `${db.file} is the mirror of Placement at ${recorded}, not of ${identity}: give another --db FILE for this upstream, or --replace-db to make ${db.file} its mirror (its content is then replaced).`,
        );
      }
      const held = contents(db);
      if (held) {
        throw new DatabaseRefused(
          `${db.file} holds data that is not a mirror of Placement${identity ? ` at ${identity}` : ''} (${held}): give another --db FILE for the mirror, or --replace-db to replace its content with the mirror.`,
        );
      }
    }
    if (identity) markService(db, 'placement', identity);
  });
}
