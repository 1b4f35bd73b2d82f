// Small requests to Placement's REST API under /placement next to /health, from one keep-alive client
// (Node's, and a Python one as osc-placement, Nova and exporters are), interleaved request by request:
// the version document, one provider, a refused query, a request refused for its token. Each should
// cost about what /health costs, whatever the size of the cloud.
//   node --import tsx bench/rest.ts [SIZE ...]   (0 = the demo cloud; default: 0 1000)
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { openDatabase } from '../src/db/client.js';
import { importSnapshot } from '../src/modules/snapshot/snapshot.service.js';
import { scenarioText } from './generate.js';
import { HttpClient, startOurs } from './services.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const ADMIN = { 'x-auth-token': 'admin', 'openstack-api-version': 'placement 1.39', accept: 'application/json' };

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/** The requests timed, for one provider of the cloud. */
export function smallRequests(uuid: string) {
  return [
    { name: '/health', path: '/health', headers: {} },
    { name: 'GET /placement/', path: '/placement/', headers: {} },
    { name: 'GET /placement/resource_providers/{uuid}', path: `/placement/resource_providers/${uuid}`, headers: ADMIN },
    { name: 'refused query (400)', path: '/placement/resource_providers?resources=VCPU:0', headers: ADMIN },
    { name: 'refused token (401)', path: '/placement/resource_providers', headers: {} },
  ];
}

/** Median milliseconds of each request, from the Node client and from the Python client. */
export async function timeSmallRequests(url: string, uuid: string, repeat = 300): Promise<{ name: string; node: number; python: number | null }[]> {
  const requests = smallRequests(uuid);
  const client = new HttpClient(url);
  const node = new Map<string, number[]>(requests.map((r) => [r.name, []]));
  for (let i = 0; i < 20; i++) for (const r of requests) await client.get(r.path, r.headers);
  for (let i = 0; i < repeat; i++) for (const r of requests) node.get(r.name)!.push((await client.get(r.path, r.headers)).ms);
  client.close();
  const py = spawnSync('/usr/bin/python3', [join(ROOT, 'bench/rest_client.py'), url, String(repeat)], { input: JSON.stringify(requests), encoding: 'utf8' });
  const python: Record<string, number[]> | null = py.status === 0 ? JSON.parse(py.stdout) : null;
  return requests.map((r) => ({ name: r.name, node: median(node.get(r.name)!), python: python ? median(python[r.name]) : null }));
}

export function restTable(rows: { name: string; node: number; python: number | null }[]): string {
  const health = rows[0];
  const ratio = (ms: number | null, base: number | null) => (ms === null || base === null ? '-' : `${(ms / base).toFixed(2)}×`);
  const lines = ['| request | Node client median ms | × /health | Python client median ms | × /health |', '|---|---:|---:|---:|---:|'];
  for (const r of rows) lines.push(`| ${r.name} | ${r.node.toFixed(3)} | ${ratio(r.node, health.node)} | ${r.python === null ? '-' : r.python.toFixed(3)} | ${ratio(r.python, health.python)} |`);
  return lines.join('\n');
}

async function main(sizes: number[]) {
  for (const size of sizes) {
    const scenario = size === 0 ? JSON.parse(readFileSync(join(ROOT, 'demo/demo-cloud.json'), 'utf8')) : JSON.parse(scenarioText(1, size));
    const dbFile = join(mkdtempSync(join(tmpdir(), 'placement-gql-rest-bench-')), 'bench.db');
    const db = openDatabase(dbFile);
    importSnapshot(db, scenario);
    db.close();
    const one = scenario.providers.find((p: { parent: string | null }) => p.parent !== null) ?? scenario.providers[0];
    const ours = await startOurs(dbFile, { workers: 1 });
    const rows = await timeSmallRequests(ours.url, one.uuid);
    await ours.stop();
    console.log(`\n### ${size === 0 ? 'The demo cloud' : `${size} roots (seed 1)`}: ${scenario.providers.length} providers\n`);
    console.log(restTable(rows));
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const sizes = process.argv.slice(2).map(Number);
  await main(sizes.length ? sizes : [0, 1000]);
}
