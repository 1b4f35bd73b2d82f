// The change log: every write is logged with the providers it changed and its kind, whoever writes
// (a service, another connection to the same file, an import), and caches read what changed from it.
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../src/db/client.js';
import { bulkWrite, changesBetween, dataVersion, keptPerDatabase, providerDelta } from '../src/db/changes.js';
import { setAllocations } from '../src/modules/allocations/allocations.service.js';
import { setInventory } from '../src/modules/inventories/inventories.service.js';
import { setProviderTraits } from '../src/modules/traits/traits.service.js';
import { createTrait } from '../src/modules/traits/traits.service.js';
import { providerByUuid } from '../src/modules/providers/providers.service.js';
import { importSnapshot } from '../src/modules/snapshot/snapshot.service.js';
import { demoCloud, tempDbFile } from './helpers.js';

const CN1 = '6a8f40e8-5319-5d5e-8a89-ecb6de64c990';

function loaded() {
  const file = tempDbFile();
  const db = openDatabase(file);
  importSnapshot(db, demoCloud());
  return { file, db };
}

const allocate = (consumerUuid: string, providerUuid: string, vcpus: number) => ({
  consumerUuid,
  consumerGeneration: null,
  projectId: 'p',
  userId: 'u',
  allocations: [{ providerUuid, resources: [{ resourceClass: 'VCPU', amount: vcpus }] }],
});

describe('the change log', () => {
  it('logs an import once, as a bulk write', () => {
    const db = openDatabase(tempDbFile());
    const before = dataVersion(db);
    importSnapshot(db, demoCloud());
    const changes = changesBetween(db, before, dataVersion(db));
    expect(changes.all).toBe(true);
    expect(db.sqlite.prepare('SELECT COUNT(*) AS n FROM change_log WHERE seq > ?').get(before.seq)).toEqual({ n: 1 });
  });

  it('names the providers and the kind of each write', () => {
    const { db } = loaded();
    const cn1 = providerByUuid(db, CN1)!;
    const v0 = dataVersion(db);
    db.transaction(() => setAllocations(db, allocate('00000000-0000-4000-8000-000000000001', CN1, 1)));
    const v1 = dataVersion(db);
    const usage = changesBetween(db, v0, v1);
    expect([...usage.kinds.keys()].sort()).toEqual(['consumer', 'usage']);
    expect(providerDelta(db, v0, v1)).toMatchObject({ ids: new Set([cn1.id]), usage: new Set([cn1.id]), inventory: new Set(), names: false });

    db.transaction(() => setInventory(db, { providerUuid: CN1, generation: cn1.generation + 1, resourceClass: 'VCPU', total: 64 }));
    const v2 = dataVersion(db);
    expect(changesBetween(db, v1, v2).kinds.get('inventory')).toEqual(new Set([cn1.id]));
    expect(providerDelta(db, v1, v2)).toMatchObject({ ids: new Set([cn1.id]), usage: new Set(), inventory: new Set([cn1.id]) });

    db.transaction(() => createTrait(db, 'CUSTOM_LOGGED'));
    const v3 = dataVersion(db);
    db.transaction(() => setProviderTraits(db, { providerUuid: CN1, generation: cn1.generation + 2, traits: ['CUSTOM_LOGGED'] }));
    const all = changesBetween(db, v2, dataVersion(db));
    expect(all.kinds.get('names')).toEqual(new Set());
    expect(all.kinds.get('traits')).toEqual(new Set([cn1.id]));
    expect(changesBetween(db, v3, v3).none).toBe(true);
  });

  it('sees what another connection to the same file wrote', () => {
    const { file, db } = loaded();
    const other = openDatabase(file);
    const before = dataVersion(db);
    other.transaction(() => setAllocations(other, allocate('00000000-0000-4000-8000-000000000002', CN1, 2)));
    expect(providerDelta(db, before, dataVersion(db))?.usage).toEqual(new Set([providerByUuid(db, CN1)!.id]));
    other.close();
  });

  it('gives no version inside a transaction, and a rolled-back write changes nothing kept', () => {
    const { db } = loaded();
    let made = 0;
    const kept = keptPerDatabase(() => ++made);
    expect(kept(db)).toBe(1);
    expect(kept(db)).toBe(1);
    expect(() =>
      db.transaction(() => {
        setAllocations(db, allocate('00000000-0000-4000-8000-000000000003', CN1, 1));
        expect(dataVersion(db).seq).toBe(-1);
        // Made inside a transaction that may roll back: not kept.
        expect(kept(db)).toBe(2);
        throw new Error('rolled back');
      }),
    ).toThrow('rolled back');
    // The data is as it was when the first value was made.
    expect(kept(db)).toBe(1);
    db.transaction(() => setAllocations(db, allocate('00000000-0000-4000-8000-000000000003', CN1, 1)));
    expect(kept(db)).toBe(3);
  });

  it('a bulk write inside another is one entry', () => {
    const { db } = loaded();
    const before = dataVersion(db);
    db.transaction(() => bulkWrite(db, () => bulkWrite(db, () => setAllocations(db, allocate('00000000-0000-4000-8000-000000000004', CN1, 1)))));
    expect(db.sqlite.prepare('SELECT kind FROM change_log WHERE seq > ?').all(before.seq)).toEqual([{ kind: 'all' }]);
  });
});
