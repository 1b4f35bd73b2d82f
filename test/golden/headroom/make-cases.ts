// Headroom cases for the recording against the real Placement (record.py): small generated clouds, the
// demo cloud and a generated cloud, each with a request, our count and our plan.
//
//   npx tsx test/golden/headroom/make-cases.ts > test/golden/headroom/cases.json
import { readFileSync } from 'node:fs';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../../../src/db/client.js';
import { importSnapshot } from '../../../src/modules/snapshot/snapshot.service.js';
import { headroom } from '../../../src/modules/capacity/capacity.headroom.js';
import { placementQuery, smallCloud, smallRequest } from '../../capacity-support.js';

const read = (path: string) => JSON.parse(readFileSync(new URL(path, import.meta.url), 'utf8'));
const flavor = (vcpu: number, mem: number, disk: number) => ({ groups: [{ resources: [{ resourceClass: 'VCPU', amount: vcpu }, { resourceClass: 'MEMORY_MB', amount: mem }, { resourceClass: 'DISK_GB', amount: disk }] }] });

const sources: { name: string; scenario: any; request: any }[] = [];
for (let seed = 1; seed <= 200 && sources.length < 40; seed++) sources.push({ name: `small_seed${seed}`, scenario: smallCloud(seed), request: smallRequest(seed) });
sources.push({ name: 'demo_4_8192_80', scenario: read('../../../demo/demo-cloud.json'), request: flavor(4, 8192, 80) });
const generated = read('../generated/seed1_size20.scenario.json');
delete generated.queries;
sources.push({ name: 'seed1_size20_2_4096_40', scenario: generated, request: flavor(2, 4096, 40) });
sources.push({
  name: 'seed1_size20_isolate',
  scenario: generated,
  request: { groups: [{ suffix: '1', resources: [{ resourceClass: 'VCPU', amount: 2 }] }, { suffix: '2', resources: [{ resourceClass: 'VCPU', amount: 2 }] }], groupPolicy: 'ISOLATE' },
});

const cases = [];
for (const { name, scenario, request } of sources) {
  const db = openDatabase(join(mkdtempSync(join(tmpdir(), 'headroom-cases-')), 'h.db'));
  importSnapshot(db, scenario);
  const h = await headroom(db, request);
  if (h.fits === 0 && !name.startsWith('demo')) continue;
  const plan = h.plan().map((r) => Object.fromEntries(r.allocations.map((a) => [a.provider.uuid, Object.fromEntries(a.resources.map((x) => [x.resourceClass, x.amount]))])));
  cases.push({ name, scenario, request, query: placementQuery(request), fits: h.fits, atMost: h.atMost, exact: h.exact, plan });
  db.sqlite.close();
}
process.stdout.write(JSON.stringify({ cases }) + '\n');
