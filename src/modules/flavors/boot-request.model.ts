// What a boot request is built from and into: the flavor and image given, Nova's view of them
// (Inputs), the ResourceRequest being built, and the request answered.
import { isStandardResourceClass } from '../../catalog/index.js';
import { pyInt } from '../../rules/python.js';
import type { CandidatesRequestInput } from '../candidates/index.js';
import { imageProp, type NovaImageMeta } from '../images/nova-image-meta.js';

export interface FlavorSpec {
  name: string;
  vcpus: number;
  memoryMb: number;
  rootGb: number;
  ephemeralGb: number;
  swapMb: number;
  /** In the flavor's order (Nova reads them as a dict). */
  extraSpecs: readonly (readonly [string, string])[];
}

export interface ImageSpec {
  uuid: string;
  name: string;
  properties: readonly (readonly [string, string])[];
}

export interface BootRequestOptions {
  /** Boot from volume: the flavor's root disk is not asked for. */
  bootFromVolume?: boolean;
}

export interface BootRequestGroup {
  /** null = the unsuffixed group. */
  suffix: string | null;
  /** Sorted by resource class. */
  resources: { resourceClass: string; amount: number }[];
  required: string[];
  forbidden: string[];
}

export interface PlacementQuery {
  /** The unsuffixed group first, then by suffix. */
  groups: BootRequestGroup[];
  groupPolicy: 'none' | 'isolate' | null;
  rootRequired: string[];
  rootForbidden: string[];
  limit: number;
  cpuPinningRequested: boolean;
  /** GET /allocation_candidates?<query>, exactly as Nova's ResourceRequest.to_querystring writes it. */
  query: string;
  /** The same request in the candidates search's shape. */
  candidatesRequest: CandidatesRequestInput;
}

export interface BootRequest extends PlacementQuery {
  /** The second query Nova's scheduler sends when CPU pinning is requested (PCPU asked as VCPU). */
  fallback: PlacementQuery | null;
  /** Traits the image requires (trait:NAME=required), sorted. */
  imageTraitsRequired: string[];
  /** What Nova logs as warnings while building the request (ignored extra specs...). */
  warnings: string[];
  /** Why POST /servers would answer 400 before scheduling, or null (for the checks reproduced here). */
  apiError: string | null;
}

/** Nova cannot build the request (a conflict or an invalid value): its error text. */
export class BootRequestError extends Error {}

/** [scheduler]max_placement_results */
export const MAX_PLACEMENT_RESULTS = 1000;
export const tuple = (values: string[]) => `(${values.map((v) => `'${v}'`).join(', ')})`;
export const pyStr = (value: unknown) => (value === true ? 'True' : value === false ? 'False' : String(value));

export class RequestGroup {
  resources = new Map<string, number>();
  required = new Set<string>();
  forbidden = new Set<string>();
  isEmpty = () => this.resources.size === 0 && this.required.size === 0 && this.forbidden.size === 0;
}

/** What the request is built from: the flavor, the image as Nova reads it, and the log. */
export class Inputs {
  readonly specs: Map<string, string>;
  constructor(
    readonly flavor: FlavorSpec,
    readonly imageName: string,
    readonly imageId: string,
    readonly image: NovaImageMeta,
  ) {
    this.specs = new Map(flavor.extraSpecs);
  }
  /** _get_flavor_image_meta: the hw:<key> extra spec and the hw_<key> image property. */
  both(key: string, prefix = 'hw'): [string | undefined, ReturnType<typeof imageProp>] {
    return [this.specs.get(`${prefix}:${key}`), imageProp(this.image, `${prefix}_${key}`)];
  }
  /** _get_unique_flavor_image_meta: either one, but not two different ones. */
  unique(key: string, prefix = 'hw') {
    const [flavorValue, imageValue] = this.both(key, prefix);
    if (imageValue && flavorValue && imageValue !== flavorValue) {
      throw new BootRequestError(
        `Flavor ${this.flavor.name} has ${prefix}:${key} extra spec explicitly set to ${flavorValue}, conflicting with image ${this.imageName} which has ${prefix}_${key} explicitly set to ${pyStr(imageValue)}.`,
      );
    }
    return flavorValue || imageValue || undefined;
  }
}

export class ResourceRequest {
  groups = new Map<string | null, RequestGroup>();
  groupPolicy: 'none' | 'isolate' | null = null;
  cpuPinningRequested = false;

  constructor(private readonly warnings: string[]) {}

  group(suffix: string | null) {
    let group = this.groups.get(suffix);
    if (!group) this.groups.set(suffix, (group = new RequestGroup()));
    return group;
  }

  /** RequestGroup.add_resource: unknown classes and bad amounts are logged and skipped. */
  addResource(resourceClass: string, amount: string | number, suffix: string | null = null) {
    const group = this.group(suffix);
    if (!resourceClass.startsWith('CUSTOM_') && !isStandardResourceClass(resourceClass)) {
      this.warnings.push(`Received an invalid ResourceClass '${resourceClass}' in extra_specs.`);
      return;
    }
    const n = typeof amount === 'number' ? BigInt(amount) : pyInt(amount);
    if (n === null || n < 0n) {
      this.warnings.push(`Resource amounts must be nonnegative integers. Received '${n ?? amount}'`);
      return;
    }
    group.resources.set(resourceClass, Number(n));
  }

  addTrait(trait: string, kind: string, suffix: string | null = null) {
    const group = this.group(suffix);
    if (kind === 'required') group.required.add(trait);
    else if (kind === 'forbidden') group.forbidden.add(trait);
    else this.warnings.push(`Only (required, forbidden) traits are supported. Received '${kind}'.`);
  }

  mergedResources() {
    const merged = new Map<string, number>();
    for (const g of this.groups.values()) for (const [rc, n] of g.resources) merged.set(rc, (merged.get(rc) ?? 0) + n);
    return merged;
  }

  stripZeros() {
    for (const g of this.groups.values()) for (const [rc, n] of g.resources) if (n === 0) g.resources.delete(rc);
    for (const [suffix, g] of this.groups) if (g.isEmpty()) this.groups.delete(suffix);
  }

  suffixedGroups = () => [...this.groups.keys()].filter((s) => s !== null).length;
}
