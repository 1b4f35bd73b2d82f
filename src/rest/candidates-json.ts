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
import type { ProviderRow } from '../modules/providers/providers.service.js';

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

/**
 * A string kept for reuse, made flat: text built by concatenation is a tree of pieces that every
 * join walks again, while a joined array is one flat string.
 */
const flat = (...pieces: string[]) => pieces.join('');

/** Names and numbers are plain ASCII ([A-Z0-9_], uuids, group suffixes): JSON.stringify writes them as Python's json does. */
const str = (value: string) => `"${value}"`;

/** `"VCPU": 1` of an amount, kept per amount (a group's amounts are the same objects in all its requests). */
const amountJson = new WeakMap<ResourceAmount, string>();
function amount(r: ResourceAmount): string {
  let json = amountJson.get(r);
  if (json === undefined) amountJson.set(r, (json = flat(str(r.resourceClass), ': ', String(r.amount))));
  return json;
}

/** Pushes `{"VCPU": 1, "MEMORY_MB": 512}` as pieces (no string is made for the list itself). */
function pushAmounts(out: string[], resources: readonly ResourceAmount[]) {
  out.push('{', amount(resources[0]));
  for (let i = 1; i < resources.length; i++) out.push(', ', amount(resources[i]));
  out.push('}');
}

/** `"UUID": {"resources": ` of a provider, kept per provider row (one per provider while the data does not change). */
const keyJson = new WeakMap<ProviderRow, string>();
function providerKey(p: ProviderRow): string {
  let json = keyJson.get(p);
  if (json === undefined) keyJson.set(p, (json = flat('"', p.uuid, '": {"resources": ')));
  return json;
}

/** A provider summary's JSON per shape, kept while the summary lives (summaries are made once per tree catalog). */
const summaryJson = new WeakMap<ProviderSummary, Map<number, string>>();
function summary(s: ProviderSummary, shape: Shape): string {
  const key = (shape.traits ? 1 : 0) + (shape.tree ? 2 : 0);
  let byShape = summaryJson.get(s);
  let json = byShape?.get(key);
  if (json !== undefined) return json;
  const pieces = [str(s.provider.uuid), ': {"resources": {', s.resources.map(resource).join(', '), '}'];
  if (shape.traits) pieces.push(', "traits": [', inIdOrder(s.traits, shape.traitIds).map(str).join(', '), ']');
  if (shape.tree) pieces.push(', "parent_provider_uuid": ', s.parentUuid === null ? 'null' : str(s.parentUuid), ', "root_provider_uuid": ', str(s.rootUuid));
  pieces.push('}');
  json = pieces.join('');
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
  const suffixes = new Map<string, string>();
  const suffixJson = (suffix: string) => {
    let json = suffixes.get(suffix);
    if (json === undefined) suffixes.set(suffix, (json = flat('"', suffix, '": ["')));
    return json;
  };
  for (let i = 0; i < requests.length; i++) {
    const allocations = passingAllocations(requests[i]);
    out.push(i ? ', {"allocations": ' : '{"allocations": ');
    if (shape.dict) {
      out.push('{');
      for (let k = 0; k < allocations.length; k++) {
        out.push(k ? ', ' : '', providerKey(allocations[k].provider));
        pushAmounts(out, allocations[k].resources);
        out.push('}');
      }
      out.push('}');
      if (shape.mappings) {
        const mappings = passingMappings(requests[i]);
        out.push(', "mappings": {');
        for (let g = 0; g < mappings.length; g++) {
          const providers = mappings[g].providers;
          out.push(g ? ', ' : '', suffixJson(mappings[g].suffix), providers[0].uuid);
          for (let p = 1; p < providers.length; p++) out.push('", "', providers[p].uuid);
          out.push('"]');
        }
        out.push('}');
      }
    } else {
      out.push('[');
      for (let k = 0; k < allocations.length; k++) {
        out.push(k ? ', {"resource_provider": {"uuid": "' : '{"resource_provider": {"uuid": "', allocations[k].provider.uuid, '"}, "resources": ');
        pushAmounts(out, allocations[k].resources);
        out.push('}');
      }
      out.push(']');
    }
    out.push('}');
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
