// The reads of a candidate search restricted to a few trees (in_tree, an answer using a few trees):
// the same rows as the read of every tree, kept to those trees, and found through the root index,
// never by reading every provider or every inventory of a class.
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../src/db/client.js';
import { importSnapshot } from '../src/modules/snapshot/snapshot.service.js';
import { capacityRows } from '../src/modules/candidates/candidates.data.js';
import { readTrees } from '../src/modules/candidates/candidates.index.js';
import { all } from '../src/db/sql.js';
import { demoCloud, tempDbFile } from './helpers.js';

function demoDb() {
  const db = openDatabase(tempDbFile());
  importSnapshot(db, demoCloud());
  return db;
}

/** The SQL prepared while `read` runs (statements are prepared once per database: a new one sees them all). */
function preparedBy(db: ReturnType<typeof openDatabase>, read: () => void): string[] {
  const seen: string[] = [];
  const prepare = db.sqlite.prepare.bind(db.sqlite);
  db.sqlite.prepare = ((source: string) => (seen.push(source), prepare(source))) as typeof db.sqlite.prepare;
  try {
    read();
  } finally {
    db.sqlite.prepare = prepare;
  }
  return seen;
}

/** SQLite's plan of a statement, one line per step (parameters bound to a one-item list or the id 1). */
function planOf(db: ReturnType<typeof openDatabase>, source: string): string[] {
  const params = [...source.matchAll(/\?/g)].map(() => '[1]');
  return (db.sqlite.prepare(`EXPLAIN QUERY PLAN ${source}`).all(...params) as { detail: string }[]).map((r) => r.detail);
}

describe('reads of a few trees', () => {
  const db = demoDb();
  // Two trees of several providers each, and one of a single provider.
  const trees = all<{ id: number; size: number }>(db, 'SELECT root_id AS id, COUNT(*) AS size FROM resource_providers GROUP BY root_id ORDER BY 2 DESC, 1');
  const some = [trees[0].id, trees[1].id, trees[trees.length - 1].id];
  const classes = all<{ id: number }>(db, 'SELECT DISTINCT resource_class_id AS id FROM inventories ORDER BY 1').map((r) => r.id);

  it('read the rows of those trees, as the read of every tree has them', () => {
    const whole = readTrees(db, null);
    const part = readTrees(db, some);
    const inSome = (id: number) => some.includes(whole.byId.get(id)!.rootId);
    expect([...part.byId.keys()]).toEqual([...whole.byId.keys()].filter(inSome));
    expect(part.byId.size).toBe(trees[0].size + trees[1].size + 1);
    expect([...part.inventories]).toEqual([...whole.inventories].filter(([id]) => inSome(id)));
    expect([...part.traits]).toEqual([...whole.traits].filter(([id]) => inSome(id)));
    for (const classId of classes) {
      expect(capacityRows(db, classId, some)).toEqual(capacityRows(db, classId, null).filter((r) => some.includes(r.rootId)));
    }
  });

  it('find those trees through the root index', () => {
    const fresh = demoDb();
    const sources = preparedBy(fresh, () => {
      readTrees(fresh, some);
      capacityRows(fresh, classes[0], some);
    });
    expect(sources).toHaveLength(4);
    for (const source of sources) {
      const plan = planOf(fresh, source);
      expect(plan.some((step) => /^SEARCH rp USING (COVERING )?INDEX resource_providers_root_idx \(root_id=\?\)$/.test(step)), `${source}\n${plan.join('\n')}`).toBe(true);
      expect(plan.filter((step) => step.startsWith('SCAN') && !step.includes('json_each')), source).toEqual([]);
    }
  });
});
