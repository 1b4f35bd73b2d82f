// GET /allocation_candidates' body written straight from the search's objects, as Placement's
// json.dumps writes it (", " and ": " separators): allocation requests as lists of providers before
// 1.12 and as dicts by provider from 1.12 with mappings from 1.34; provider summaries with traits
// from 1.17 and parent and root from 1.29. Large answers hold tens of thousands of requests that
// repeat the same providers and amounts: what is shared is kept as bytes (a provider's key, the
// amounts of a group, a request, a provider's summary) and copied into the answer's buffer at each use.
import { isReused, type CandidateRequest, type CandidatesFound, type ProviderSummary, type SummaryResource } from '../modules/candidates/index.js';
import type { ResourceAmount } from '../modules/common/names.js';
import { asciiBytes, JsonBytes, keptCopy } from '../modules/common/json-bytes.js';
import type { ProviderRow } from '../modules/providers/providers.service.js';

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

const [OPEN, CLOSE, OPEN_LIST, CLOSE_LIST] = ['{', '}', '[', ']'].map((c) => c.charCodeAt(0));
const SEPARATOR = asciiBytes(', ');
const REQUEST = asciiBytes('{"allocations": ');
const MAPPINGS = asciiBytes(', "mappings": {');
const BETWEEN_UUIDS = asciiBytes('", "');
const END_OF_LIST = asciiBytes('"]');
const LIST_PROVIDER = asciiBytes('{"resource_provider": {"uuid": "');
const LIST_RESOURCES = asciiBytes('"}, "resources": ');
const SUMMARIES = asciiBytes('], "provider_summaries": {');

/** `{"VCPU": 1, "MEMORY_MB": 512}` of a list of amounts: kept per list (a group's list is shared by all its requests) or per amount alone. */
const amountsJson = new WeakMap<object, Buffer>();
function writeAmounts(out: JsonBytes, resources: readonly ResourceAmount[]) {
  const key = resources.length === 1 ? resources[0] : resources;
  let json = amountsJson.get(key);
  if (json === undefined) amountsJson.set(key, (json = asciiBytes(`{${resources.map((r) => `${str(r.resourceClass)}: ${r.amount}`).join(', ')}}`)));
  out.bytes(json);
}

/** A provider's pieces, kept per provider row (one per provider while the data does not change). */
interface ProviderPieces {
  /** `"UUID": {"resources": ` */
  key: Buffer;
  /** `UUID` */
  uuid: Buffer;
}
const providerJson = new WeakMap<ProviderRow, ProviderPieces>();
function pieces(p: ProviderRow): ProviderPieces {
  let json = providerJson.get(p);
  if (json === undefined) providerJson.set(p, (json = { key: asciiBytes(`"${p.uuid}": {"resources": `), uuid: asciiBytes(p.uuid) }));
  return json;
}

/** A provider summary's JSON per shape, kept on the summary (summaries are made once per tree catalog). */
function summary(s: ProviderSummary, shape: Shape): Uint8Array {
  const key = (shape.traits ? 1 : 0) + (shape.tree ? 2 : 0);
  const kept = s.placementJson[key];
  if (kept !== undefined) return kept;
  const text = [str(s.provider.uuid), ': {"resources": {', s.resources.map(resource).join(', '), '}'];
  if (shape.traits) text.push(', "traits": [', inIdOrder(s.traits, shape.traitIds).map(str).join(', '), ']');
  if (shape.tree) text.push(', "parent_provider_uuid": ', s.parentUuid === null ? 'null' : str(s.parentUuid), ', "root_provider_uuid": ', str(s.rootUuid));
  text.push('}');
  return (s.placementJson[key] = asciiBytes(text.join('')));
}

/** A provider's traits as Placement lists them: in the order of their ids (standard traits first, then custom ones as created). */
const inIdOrder = (names: readonly string[], ids: ReadonlyMap<string, number>) => [...names].sort((a, b) => (ids.get(a) ?? 0) - (ids.get(b) ?? 0));

const resource = (r: SummaryResource) => `${str(r.resourceClass)}: {"capacity": ${r.capacity}, "used": ${r.used}}`;

/**
 * A request's JSON per shape (0: a list of providers, 1: a dict, 2: a dict with mappings), kept on
 * the request from its second answer on (see candidates.kept.ts); written each time before.
 */
const scratch = new JsonBytes(512);
function writeRequest(out: JsonBytes, r: CandidateRequest, shape: Shape): void {
  if (!isReused(r)) return request(out, r, shape);
  const key = shape.dict ? (shape.mappings ? 2 : 1) : 0;
  let json = r.placementJson[key];
  if (json === undefined) {
    request(scratch.reset(), r, shape);
    r.placementJson[key] = json = keptCopy(scratch.done());
  }
  out.bytes(json);
}

function request(out: JsonBytes, r: CandidateRequest, shape: Shape): void {
  out.bytes(REQUEST);
  const { allocations } = r;
  if (shape.dict) {
    out.char(OPEN);
    for (let k = 0; k < allocations.length; k++) {
      if (k) out.bytes(SEPARATOR);
      out.bytes(pieces(allocations[k].provider).key);
      writeAmounts(out, allocations[k].resources);
      out.char(CLOSE);
    }
    out.char(CLOSE);
    if (shape.mappings) {
      out.bytes(MAPPINGS);
      r.mappings.forEach((mapping, g) => {
        if (g) out.bytes(SEPARATOR);
        out.text(`"${mapping.suffix}": ["`);
        mapping.providers.forEach((provider, p) => {
          if (p) out.bytes(BETWEEN_UUIDS);
          out.bytes(pieces(provider).uuid);
        });
        out.bytes(END_OF_LIST);
      });
      out.char(CLOSE);
    }
  } else {
    out.char(OPEN_LIST);
    for (let k = 0; k < allocations.length; k++) {
      if (k) out.bytes(SEPARATOR);
      out.bytes(LIST_PROVIDER);
      out.bytes(pieces(allocations[k].provider).uuid);
      out.bytes(LIST_RESOURCES);
      writeAmounts(out, allocations[k].resources);
      out.char(CLOSE);
    }
    out.char(CLOSE_LIST);
  }
  out.char(CLOSE);
}

/** The answer's body at microversion 1.minor. */
export function candidatesJson(found: CandidatesFound, minor: number): Buffer {
  const shape: Shape = { dict: minor >= 12, mappings: minor >= 34, traits: minor >= 17, tree: minor >= 29, traitIds: found.traitIds };
  const requests = found.allocationRequests;
  const summaries = found.providerSummaries;
  // More than a request and a summary usually take (with traits, several providers, mappings): a
  // buffer too small is copied as it grows, one too large costs nothing until written.
  const out = new JsonBytes(64 + requests.length * 320 + summaries.length * 480);
  out.text('{"allocation_requests": [');
  for (let i = 0; i < requests.length; i++) {
    if (i) out.bytes(SEPARATOR);
    writeRequest(out, requests[i], shape);
  }
  out.bytes(SUMMARIES);
  for (let i = 0; i < summaries.length; i++) {
    if (i) out.bytes(SEPARATOR);
    out.bytes(summary(summaries[i], shape));
  }
  out.char(CLOSE);
  out.char(CLOSE);
  return out.done();
}
