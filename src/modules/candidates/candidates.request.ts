// The normalized search request (Placement's RequestGroup / RequestWideParams), and the
// structured GraphQL input checked and turned into it with Placement's 1.39 rules and messages.
import { codePointOrder, pyList, pyRepr } from '../../rules/python.js';
import { LATEST_MINOR } from '../../rules/microversion.js';
import { QUERY_BAD_VALUE, QUERY_MISSING_VALUE, reject } from '../common/query-string.js';
import type { CandidatesRequestInput } from './candidates.types.js';


export interface SearchGroup {
  /** "" = the unsuffixed group (resources may come from several providers of a tree and sharing providers). */
  suffix: string;
  /** Resource class and amount, in request order; empty for a resourceless group. */
  resources: [string, number][];
  /** Sets of trait names: every set must be met by at least one of its traits. */
  required: string[][];
  forbidden: string[];
  /** Sets of aggregate uuids: every set must be met by one of its aggregates. */
  memberOf: string[][];
  forbiddenAggregates: string[];
  inTree: string | null;
}

export interface SearchRequest {
  /** In request order: Placement processes groups in that order and stops at the first empty one. */
  groups: SearchGroup[];
  groupPolicy: 'none' | 'isolate' | null;
  sameSubtree: string[][];
  rootRequired: string[];
  rootForbidden: string[];
  limit: number | null;
  /** The Placement microversion 1.<minor> whose semantics apply. */
  minor: number;
}

/** Placement's checks on a parsed request that do not need the database (lib.RequestGroup.dict_from_request). */
export function checkGroups(request: SearchRequest) {
  const { groups, minor } = request;
  if (minor >= 36) {
    const resourceless = groups.filter((g) => g.resources.length === 0).map((g) => g.suffix);
    if (resourceless.length === groups.length) reject('There must be at least one resources or resources[$S] parameter.', 400, QUERY_MISSING_VALUE);
    const inSubtrees = new Set(request.sameSubtree.flat());
    const bad = resourceless.filter((s) => !inSubtrees.has(s));
    if (bad.length) reject(`Resourceless suffixed group request should be specified in \`same_subtree\` query param: bad group(s) - ${pyList(bad)}.`, 400, QUERY_BAD_VALUE);
    const known = new Set(groups.map((g) => g.suffix));
    const unknown = [...inSubtrees].filter((s) => !known.has(s));
    if (unknown.length) reject(`Real suffixes should be specified in \`same_subtree\`: ${pyList(unknown)} not found in ${pyList(groups.map((g) => g.suffix))}.`, 400, QUERY_BAD_VALUE);
  } else {
    const orphanTraits = groups.filter((g) => g.required.length && !g.resources.length).map((g) => `required${g.suffix}`);
    if (orphanTraits.length) reject(`All traits parameters must be associated with resources. Found the following orphaned traits keys: ${orphanTraits.join(', ')}`);
    const orphanAggregates = groups.filter((g) => !g.resources.length && (g.memberOf.length || g.forbiddenAggregates.length)).map((g) => `member_of${g.suffix}`);
    if (orphanAggregates.length) reject(`All member_of parameters must be associated with resources. Found the following orphaned member_of keys: ${orphanAggregates.join(', ')}`);
    if (!groups.every((g) => g.resources.length)) reject('All request groups must specify resources.');
    if (!groups.length) reject('At least one request group (`resources` or `resources{$S}`) is required.');
  }
  if (minor >= 22) {
    const conflicts: string[] = [];
    for (const g of groups) {
      const forbidden = new Set(g.forbidden);
      for (const anyOf of g.required) if (anyOf.every((t) => forbidden.has(t))) conflicts.push(`required${g.suffix}: (${[...anyOf].sort(codePointOrder).join(', ')})`);
    }
    if (conflicts.length) reject(`Conflicting required and forbidden traits found in the following traits keys: ${conflicts.sort(codePointOrder).join(', ')}`);
  }
  if (!request.groupPolicy && groups.filter((g) => g.suffix !== '').length > 1) {
    reject('The "group_policy" parameter is required when specifying more than one "resources{N}" parameter.');
  }
}

const SUFFIX_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;

/** The structured request, checked as Placement 1.39 checks the same query string. */
export function fromInput(input: CandidatesRequestInput): SearchRequest {
  const groups: SearchGroup[] = [];
  const seen = new Set<string>();
  for (const g of input.groups) {
    const suffix = g.suffix ?? '';
    if (suffix !== '' && !SUFFIX_PATTERN.test(suffix)) reject(`Invalid group suffix ${pyRepr(suffix)}: it must match [a-zA-Z0-9_-]{1,64}.`);
    if (seen.has(suffix)) reject(`The group suffix ${pyRepr(suffix)} is given more than once.`);
    seen.add(suffix);
    const resources: [string, number][] = [];
    for (const { resourceClass, amount } of g.resources ?? []) {
      if (resources.some(([rc]) => rc === resourceClass)) reject(`Resource class ${resourceClass} is requested more than once in group ${pyRepr(suffix)}.`);
      if (amount < 1) reject(`Requested resource ${resourceClass} requires amount >= 1. Got: ${amount}.`);
      resources.push([resourceClass, amount]);
    }
    if (g.inTree === '') reject("Invalid query string parameters: Expected 'in_tree' parameter to be a format of uuid. Got: ");
    groups.push({
      suffix,
      resources,
      required: [...(g.required ?? []).map((t) => [t]), ...(g.anyOf ?? []).map((set) => [...new Set(set)])],
      forbidden: [...new Set(g.forbidden ?? [])],
      memberOf: (g.memberOf ?? []).map((set) => [...new Set(set)]),
      forbiddenAggregates: [...new Set(g.notMemberOf ?? [])],
      inTree: g.inTree ?? null,
    });
  }
  for (const set of [...groups.flatMap((g) => g.required), ...groups.flatMap((g) => g.memberOf)]) {
    if (set.length === 0) reject('An any-of set (anyOf or memberOf) must not be empty.');
  }
  if (input.limit != null && input.limit < 1) reject(`Invalid query string parameters: '${input.limit}' does not match '^[1-9][0-9]*$'`);
  const sameSubtree = (input.sameSubtree ?? []).map((set) => [...new Set(set.map((s) => s.trim()))]);
  if (sameSubtree.some((set) => set.includes(''))) reject('Empty string (unsuffixed group) can not be specified in `same_subtree`');
  const rootRequired = [...new Set(input.rootRequired ?? [])];
  const rootForbidden = [...new Set(input.rootForbidden ?? [])];
  const rootConflicts = rootRequired.filter((t) => rootForbidden.includes(t));
  if (rootConflicts.length) reject(`Conflicting required and forbidden traits found in root_required: ${rootConflicts.join(', ')}`);
  const request: SearchRequest = {
    groups,
    groupPolicy: input.groupPolicy === 'ISOLATE' ? 'isolate' : input.groupPolicy === 'NONE' ? 'none' : null,
    sameSubtree,
    rootRequired,
    rootForbidden,
    limit: input.limit ?? null,
    minor: LATEST_MINOR,
  };
  checkGroups(request);
  return request;
}
