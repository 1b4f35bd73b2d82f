// Placement's routes (placement/handler.py ROUTE_DECLARATIONS, in its order): each path template
// with its methods. A path no template matches is a 404; a method the path does not declare, a 405
// whose Allow header lists the declared methods in their order.
import type { Answer, RestRequest } from './request.js';
import * as root from './handlers/root.js';
import * as resourceClasses from './handlers/resource-classes.js';
import * as providers from './handlers/resource-providers.js';
import * as inventories from './handlers/inventories.js';
import * as usages from './handlers/usages.js';
import * as aggregates from './handlers/aggregates.js';
import * as traits from './handlers/traits.js';
import * as allocations from './handlers/allocations.js';
import * as allocationCandidates from './handlers/allocation-candidates.js';
import * as reshaper from './handlers/reshaper.js';

export type Handler = (request: RestRequest) => Answer | Promise<Answer>;

const DECLARATIONS: [string, Record<string, Handler>][] = [
  ['/', { GET: root.home }],
  // Placement answers its root with and without the trailing slash.
  ['', { GET: root.home }],
  ['/resource_classes', { GET: resourceClasses.list, POST: resourceClasses.create }],
  ['/resource_classes/{name}', { GET: resourceClasses.show, PUT: resourceClasses.update, DELETE: resourceClasses.remove }],
  ['/resource_providers', { GET: providers.list, POST: providers.create }],
  ['/resource_providers/{uuid}', { GET: providers.show, DELETE: providers.remove, PUT: providers.update }],
  ['/resource_providers/{uuid}/inventories', { GET: inventories.list, POST: inventories.create, PUT: inventories.replaceAll, DELETE: inventories.removeAll }],
  ['/resource_providers/{uuid}/inventories/{resource_class}', { GET: inventories.show, PUT: inventories.update, DELETE: inventories.remove }],
  ['/resource_providers/{uuid}/usages', { GET: usages.ofProvider }],
  ['/resource_providers/{uuid}/aggregates', { GET: aggregates.list, PUT: aggregates.replace }],
  ['/resource_providers/{uuid}/allocations', { GET: allocations.ofProvider }],
  ['/allocations', { POST: allocations.replaceMany }],
  ['/allocations/{consumer_uuid}', { GET: allocations.ofConsumer, PUT: allocations.replace, DELETE: allocations.remove }],
  ['/allocation_candidates', { GET: allocationCandidates.list }],
  ['/traits', { GET: traits.list }],
  ['/traits/{name}', { GET: traits.show, PUT: traits.create, DELETE: traits.remove }],
  ['/resource_providers/{uuid}/traits', { GET: traits.ofProvider, PUT: traits.replaceOfProvider, DELETE: traits.removeOfProvider }],
  ['/usages', { GET: allocations.totals }],
  ['/reshaper', { POST: reshaper.reshape }],
];

interface Route {
  template: string;
  pattern: RegExp | null;
  names: string[];
  handlers: Record<string, Handler>;
  allow: string;
}

const ROUTES: Route[] = DECLARATIONS.map(([template, handlers]) => {
  const names = [...template.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
  const pattern = names.length ? new RegExp(`^${template.replace(/\{\w+\}/g, '([^/]+)')}$`) : null;
  return { template, pattern, names, handlers, allow: Object.keys(handlers).join(', ') };
});
const STATIC = new Map(ROUTES.filter((r) => !r.pattern).map((r) => [r.template, r]));

export interface Match {
  template: string;
  /** The method's handler; null when the path exists but not with this method (a 405). */
  handler: Handler | null;
  params: Record<string, string>;
  allow: string;
}

/** The route of a path (PATH_INFO) and method, or null for Placement's 404. */
export function matchRoute(path: string, method: string): Match | null {
  let route = STATIC.get(path);
  let params: Record<string, string> = {};
  if (!route) {
    for (const candidate of ROUTES) {
      const found = candidate.pattern?.exec(path);
      if (!found) continue;
      route = candidate;
      params = Object.fromEntries(candidate.names.map((name, i) => [name, found[i + 1]]));
      break;
    }
  }
  if (!route) return null;
  return { template: route.template, handler: Object.hasOwn(route.handlers, method) ? route.handlers[method] : null, params, allow: route.allow };
}
