// Shared by the candidate tests: the golden files, the GraphQL selection of a whole answer, and our
// answer in the normalized form of the Placement oracle's results (test/golden).
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { expect } from 'vitest';

const GOLDEN = fileURLToPath(new URL('./golden/', import.meta.url));

/** A JSON file, gzipped or not. */
export const readGolden = (path: string) => JSON.parse(path.endsWith('.gz') ? gunzipSync(readFileSync(path)).toString('utf8') : readFileSync(path, 'utf8'));

/** The scenarios of a folder of test/golden with their results files (`.results.json` or `.results.json.gz`). */
export function goldenPairs(folder: string): { name: string; scenario: string; results: string }[] {
  const files = readdirSync(GOLDEN + folder);
  return files
    .filter((f) => f.endsWith('.scenario.json'))
    .map((f) => {
      const name = f.replace('.scenario.json', '');
      const results = files.find((r) => r === `${name}.results.json` || r === `${name}.results.json.gz`)!;
      return { name, scenario: `${GOLDEN}${folder}/${f}`, results: `${GOLDEN}${folder}/${results}` };
    });
}

export const CANDIDATES_SELECTION = `
  __typename
  ... on RequestError { status message }
  ... on Candidates {
    count truncated
    allocationRequests {
      allocations { provider { uuid } resources { resourceClass amount } }
      mappings { suffix providers { uuid } }
    }
    providerSummaries {
      provider { uuid parent { uuid } root { uuid } }
      parentProviderUuid rootProviderUuid resources { resourceClass capacity used } traits
    }
  }`;

/** JSON with sorted keys: the canonical form requests are compared in. */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as any)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

export const minorOf = (microversion: string) => Number(microversion.split('.')[1]);

/** Our answer in the oracle's normalized form, with the fields Placement shows at that microversion. */
export function normalize(answer: any, minor: number) {
  const requests = answer.allocationRequests.map((r: any) => {
    const allocations: Record<string, Record<string, number>> = {};
    for (const a of r.allocations) allocations[a.provider.uuid] = Object.fromEntries(a.resources.map((x: any) => [x.resourceClass, x.amount]));
    const mappings = Object.fromEntries(r.mappings.map((m: any) => [m.suffix, m.providers.map((p: any) => p.uuid).sort()]));
    return minor >= 34 ? canonical({ allocations, mappings }) : canonical(allocations);
  });
  const summaries: Record<string, any> = {};
  for (const s of answer.providerSummaries) {
    const summary: any = { resources: Object.fromEntries(s.resources.map((r: any) => [r.resourceClass, { capacity: r.capacity, used: r.used }])) };
    if (minor >= 17) summary.traits = s.traits;
    if (minor >= 29) {
      summary.parent_provider_uuid = s.provider.parent?.uuid ?? null;
      summary.root_provider_uuid = s.provider.root.uuid;
      expect([s.parentProviderUuid, s.rootProviderUuid]).toEqual([summary.parent_provider_uuid, summary.root_provider_uuid]);
    }
    summaries[s.provider.uuid] = summary;
  }
  return { count: answer.count, requests: requests.sort(), summaries };
}

