// Where a refresh reads Placement from: a source gives what Placement holds now, read against what the
// mirror already knows, so that only what changed needs reading in detail. Placement's API is one
// (placement-api.source.ts); writes go through the API whatever the source.
import type { KnownState, PlacementState, ReadProgress } from './placement-api.source.js';

export interface PlacementSource {
  /** What Placement holds now: every provider, and the details and allocations of what changed since `known`. */
  read(known: KnownState, onProgress?: (p: ReadProgress) => void): Promise<PlacementState>;
  /** Whether a refresh needs every allocation the mirror holds in `known` (the API's change detection does). */
  readonly needsKnownAllocations: boolean;
  close(): void;
}
