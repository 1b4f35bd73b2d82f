// Allocation requests kept from one answer to the next. A request is made only of the providers
// picked for it and of the groups' suffixes and amounts (its layout); a scheduler asks for the same
// few flavors again and again, over the same providers. Kept, a request is made once, and the JSON
// writers keep its bytes: a large answer then costs a lookup and a copy per request, where making
// each request's objects and writing them again took most of its time.
// Requests are found by the rows of the providers picked, not their ids: a provider whose row is read
// again (any change to its tree) gets new requests, so a kept one never shows a row as it was.
import type { ProviderRow } from '../providers/providers.service.js';
import type { CandidateAllocation, CandidateMapping, CandidateRequest } from './candidates.types.js';

/**
 * Most requests kept, over all layouts: about 350 bytes each with their GraphQL JSON (measured at
 * 10,000 roots), about 100 more with Placement's, so at most about 45 MB.
 * Past it, the layouts used longest ago are dropped (the rows replaced by changes go with them).
 */
export const MAX_KEPT_REQUESTS = 100_000;

/** A kept request. Its JSON is worth keeping once a later answer has asked for it again: before that, it may never be. */
export class KeptRequest implements CandidateRequest {
  reused = false;
  /**
   * Its JSON in Placement's REST answer, per shape (kept by rest/candidates-json.ts): on the request
   * itself, because looking it up elsewhere cost a large answer more than copying it.
   */
  readonly placementJson: Uint8Array[] = [];
  /** Its JSON in GraphQL answers: places in the compiled answers and their bytes in turn (kept by server/answer-json.ts). */
  answerJson: (number | Uint8Array)[] | undefined = undefined;

  constructor(
    readonly allocations: CandidateAllocation[],
    readonly mappings: CandidateMapping[],
  ) {}
}

/** Whether a request of an answer was asked for by an earlier answer too (the JSON writers keep its bytes then). */
export const isReused = (request: CandidateRequest): request is KeptRequest => request instanceof KeptRequest && request.reused;

/** Requests by the row picked for each slot, slot after slot. */
type Trie = Map<ProviderRow, Trie | KeptRequest>;

/** The requests of one layout. */
export class LayoutRequests {
  private readonly trie: Trie = new Map();
  size = 0;

  /** The request of a candidate's picks, made by `make` the first time. */
  request<C extends { picks: readonly number[] }>(candidate: C, rowOf: (id: number) => ProviderRow, make: (candidate: C) => KeptRequest): KeptRequest {
    const { picks } = candidate;
    const last = picks.length - 1;
    if (last < 0) return make(candidate);
    let node = this.trie;
    for (let i = 0; i < last; i++) {
      const row = rowOf(picks[i]);
      let next = node.get(row) as Trie | undefined;
      if (next === undefined) node.set(row, (next = new Map()));
      node = next;
    }
    const row = rowOf(picks[last]);
    let request = node.get(row) as KeptRequest | undefined;
    if (request === undefined) {
      node.set(row, (request = make(candidate)));
      this.size++;
    } else request.reused = true;
    return request;
  }
}

/** The requests of every layout asked for lately, at most `limit` in all. */
export class KeptRequests {
  /** Least recently used first. */
  private readonly layouts = new Map<string, LayoutRequests>();

  constructor(private readonly limit = MAX_KEPT_REQUESTS) {}

  /** The requests of a layout (see layoutKey); the others are trimmed to make room for this one's. */
  of(key: string): LayoutRequests {
    let mine = this.layouts.get(key);
    if (mine) this.layouts.delete(key);
    let total = 0;
    for (const kept of this.layouts.values()) total += kept.size;
    if (!mine || mine.size > this.limit) mine = new LayoutRequests();
    for (const [other, kept] of this.layouts) {
      if (total + mine.size <= this.limit) break;
      this.layouts.delete(other);
      total -= kept.size;
    }
    this.layouts.set(key, mine);
    return mine;
  }
}

/** What a request depends on besides its picks: each group's suffix and amounts, in order. */
export const layoutKey = (groups: readonly { suffix: string; amounts: readonly { resourceClass: string; amount: number }[] }[]) =>
  groups.map((g) => `${g.suffix}=${g.amounts.map((r) => `${r.resourceClass}:${r.amount}`).join(',')}`).join('&');
