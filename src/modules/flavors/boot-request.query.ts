// The query string of the request, as ResourceRequest.to_querystring writes it, and the same request for the candidate search.
import { codePointOrder } from '../../rules/python.js';
import { type PlacementQuery, MAX_PLACEMENT_RESULTS, ResourceRequest } from './boot-request.model.js';

/** urllib.parse.quote_plus: only letters, digits and _.-~ stay as they are. */
export const quotePlus = (text: string) =>
  [...Buffer.from(text, 'utf8')].map((b) => (b === 0x20 ? '+' : /[A-Za-z0-9_.~-]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase().padStart(2, '0')}`)).join('');

export const sorted = (values: Iterable<string>) => [...values].sort(codePointOrder);

export function describe(rr: ResourceRequest, rootRequired: Set<string>, rootForbidden: Set<string>): PlacementQuery {
  const groups = [...rr.groups]
    .sort(([a], [b]) => (a === null ? -1 : b === null ? 1 : codePointOrder(a, b)))
    .map(([suffix, g]) => ({
      suffix,
      resources: sorted(g.resources.keys()).map((rc) => ({ resourceClass: rc, amount: g.resources.get(rc)! })),
      required: sorted(g.required),
      forbidden: sorted(g.forbidden),
    }));
  const params: [string, string][] = [['limit', String(MAX_PLACEMENT_RESULTS)]];
  if (rr.groupPolicy) params.push(['group_policy', rr.groupPolicy]);
  if (rootRequired.size || rootForbidden.size) params.push(['root_required', [...sorted(rootRequired), ...sorted(rootForbidden).map((t) => `!${t}`)].join(',')]);
  for (const g of groups) {
    const suffix = g.suffix ?? '';
    params.push([`resources${suffix}`, sorted(g.resources.map((r) => `${r.resourceClass}:${r.amount}`)).join(',')]);
    const traits = [...g.required, ...g.forbidden.map((t) => `!${t}`)].join(',');
    if (traits) params.push([`required${suffix}`, traits]);
  }
  params.sort(([k1, v1], [k2, v2]) => codePointOrder(k1, k2) || codePointOrder(v1, v2));
  return {
    groups,
    groupPolicy: rr.groupPolicy,
    rootRequired: sorted(rootRequired),
    rootForbidden: sorted(rootForbidden),
    limit: MAX_PLACEMENT_RESULTS,
    cpuPinningRequested: rr.cpuPinningRequested,
    query: params.map(([k, v]) => `${quotePlus(k)}=${quotePlus(v)}`).join('&'),
    candidatesRequest: {
      groups: groups.map((g) => ({ suffix: g.suffix, resources: g.resources, required: g.required, forbidden: g.forbidden })),
      groupPolicy: rr.groupPolicy === 'isolate' ? 'ISOLATE' : rr.groupPolicy === 'none' ? 'NONE' : null,
      rootRequired: sorted(rootRequired),
      rootForbidden: sorted(rootForbidden),
      limit: MAX_PLACEMENT_RESULTS,
    },
  };
}
