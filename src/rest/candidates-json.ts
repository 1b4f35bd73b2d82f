// GET /allocation_candidates' body written straight from the search's objects, as Placement's
// json.dumps writes it (", " and ": " separators): allocation requests as lists of providers before
// 1.12 and as dicts by provider from 1.12 with mappings from 1.34; provider summaries with traits
// from 1.17 and parent and root from 1.29. Large answers hold tens of thousands of requests that
// repeat the same providers and amounts: what is shared is written once (the amounts of a group,
// a provider's summary) and the pieces are joined a few thousand at a time, so that no array of
// pieces outgrows the young generation.
import type { CandidatesFound, ProviderSummary, SummaryResource } from '../modules/candidates/index.js';
import { passingAllocations, passingMappings } from '../modules/candidates/index.js';
import type { ResourceAmount } from '../modules/common/names.js';

/** How many pieces are joined at a time (as the GraphQL answer writer does). */
const PIECES_PER_JOIN = 2048;

/** What the microversion shows, and the order of a provider's traits. */
interface Shape {
  dict: boolean;
  mappings: boolean;
  traits: boolean;
  tree: boolean;
  traitIds: ReadonlyMap<string, number>;
}

/** Names and numbers are plain ASCII ([A-Z0-9_], uuids, group suffixes): JSON.stringify writes them as Python's json does. */
const str = (value: string) => `"${value}"`;

/** `{"VCPU": 1, "MEMORY_MB": 512}` of a list of amounts, kept per list (a group's amounts are one list for all its requests). */
const amountsJson = new WeakMap<readonly ResourceAmount[], string>();
function amounts(resources: readonly ResourceAmount[]): string {
  let json = amountsJson.get(resources);
  if (json === undefined) {
    json = `{${resources.map((r) => `${str(r.resourceClass)}: ${r.amount}`).join(', ')}}`;
    amountsJson.set(resources, json);
  }
  return json;
}

/** A provider summary's JSON per shape, kept while the summary lives (summaries are made once per tree catalog). */
const summaryJson = new WeakMap<ProviderSummary, Map<number, string>>();
function summary(s: ProviderSummary, shape: Shape): string {
  const key = (shape.traits ? 1 : 0) + (shape.tree ? 2 : 0);
  let byShape = summaryJson.get(s);
  let json = byShape?.get(key);
  if (json !== undefined) return json;
  json = `${str(s.provider.uuid)}: {"resources": {${s.resources.map(resource).join(', ')}}`;
  if (shape.traits) json += `, "traits": [${inIdOrder(s.traits, shape.traitIds).map(str).join(', ')}]`;
  if (shape.tree) json += `, "parent_provider_uuid": ${s.parentUuid === null ? 'null' : str(s.parentUuid)}, "root_provider_uuid": ${str(s.rootUuid)}`;
  json += '}';
  if (!byShape) summaryJson.set(s, (byShape = new Map()));
  byShape.set(key, json);
  return json;
}

/** A provider's traits as Placement lists them: in the order of their ids (standard traits first, then custom ones as created). */
const inIdOrder = (names: readonly string[], ids: ReadonlyMap<string, number>) => [...names].sort((a, b) => (ids.get(a) ?? 0) - (ids.get(b) ?? 0));

const resource = (r: SummaryResource) => `${str(r.resourceClass)}: {"capacity": ${r.capacity}, "used": ${r.used}}`;

/** The answer's body at microversion 1.minor; traitIds: every trait's id by name. */
export function candidatesJson(found: CandidatesFound, minor: number, traitIds: ReadonlyMap<string, number>): string {
  const shape: Shape = { dict: minor >= 12, mappings: minor >= 34, traits: minor >= 17, tree: minor >= 29, traitIds };
  const done: string[] = [];
  let out: string[] = ['{"allocation_requests": ['];
  const flush = () => {
    done.push(out.join(''));
    out = [];
  };
  const requests = found.allocationRequests;
  for (let i = 0; i < requests.length; i++) {
    const allocations = passingAllocations(requests[i]);
    let json = i ? ', {"allocations": ' : '{"allocations": ';
    if (shape.dict) {
      json += '{';
      for (let k = 0; k < allocations.length; k++) json += `${k ? ', ' : ''}"${allocations[k].provider.uuid}": {"resources": ${amounts(allocations[k].resources)}}`;
      json += '}';
      if (shape.mappings) {
        const mappings = passingMappings(requests[i]);
        json += ', "mappings": {';
        for (let g = 0; g < mappings.length; g++) {
          const providers = mappings[g].providers;
          json += `${g ? ', ' : ''}${str(mappings[g].suffix)}: [`;
          for (let p = 0; p < providers.length; p++) json += `${p ? ', ' : ''}"${providers[p].uuid}"`;
          json += ']';
        }
        json += '}';
      }
    } else {
      json += '[';
      for (let k = 0; k < allocations.length; k++) json += `${k ? ', ' : ''}{"resource_provider": {"uuid": "${allocations[k].provider.uuid}"}, "resources": ${amounts(allocations[k].resources)}}`;
      json += ']';
    }
    out.push(json, '}');
    if (out.length >= PIECES_PER_JOIN) flush();
  }
  out.push('], "provider_summaries": {');
  const summaries = found.providerSummaries;
  for (let i = 0; i < summaries.length; i++) {
    if (i) out.push(', ');
    out.push(summary(summaries[i], shape));
    if (out.length >= PIECES_PER_JOIN) flush();
  }
  out.push('}}');
  flush();
  return done.length === 1 ? done[0] : done.join('');
}
