// Where a refresh reads Placement from: a source gives what Placement holds now, read against what the
// mirror already knows, so that only what changed needs reading in detail. Placement's API
// (placement-api.source.ts) and Placement's own database (placement-db.source.ts); writes go through
// the API whatever the source.
import type { ConsumerMeta, MirrorTree, ProviderDetail, SkippedRecord, UpstreamProvider } from './placement.records.js';

export interface PlacementSource {
  /** What Placement holds now: every provider, and the details and allocations of what changed since `known`. */
  read(known: KnownState, onProgress?: (p: ReadProgress) => void): Promise<PlacementState>;
  /** Whether a refresh needs every allocation the mirror holds in `known` (the API's change detection does). */
  readonly needsKnownAllocations: boolean;
  /** Which Placement it reads, when not the API's endpoint (the mirror records it: mirror-target.ts). */
  readonly identity?: string;
  /** How it is shown (no credentials), when not the API's endpoint. */
  readonly describe?: string;
  /** SQL statements sent so far (a database source). */
  statementCount?(): number;
  close(): void;
}

/** What the mirror holds, to read Placement against; kept between refreshes while the mirror does not change, so read only. */
export interface KnownState {
  generations: ReadonlyMap<string, number>;
  /** Every provider's name, parent and root. */
  tree: MirrorTree;
  /** provider -> the classes it has an inventory of. */
  inventoryClasses: ReadonlyMap<string, ReadonlySet<string>>;
  consumers: ReadonlyMap<string, ConsumerMeta>;
  /** consumer -> provider -> class -> amount. */
  allocations: ReadonlyMap<string, ReadonlyMap<string, Readonly<Record<string, number>>>>;
}

/** What a source read of Placement. */
export interface PlacementState {
  providers: UpstreamProvider[];
  traits: string[];
  resourceClasses: string[];
  /** Only providers whose generation moved (or new ones). */
  details: Map<string, ProviderDetail>;
  /** provider -> consumer -> class -> amount, for every provider whose allocations may have changed. */
  allocations: Map<string, Map<string, Record<string, number>>>;
  /** Consumers new or changed since the last refresh; the others keep what the mirror has. */
  consumers: Map<string, ConsumerMeta>;
  /** Every consumer Placement has, with its generation (a full read only). */
  seenConsumers: Map<string, number>;
  /** The records not mirrored, and why. */
  skipped: SkippedRecord[];
  /** Providers whose records were judged again in this read: in detail, or only their allocations. */
  judged: { details: Set<string>; allocations: Set<string> };
}

export interface ReadProgress {
  done: number;
  total: number;
  requests: number;
}
