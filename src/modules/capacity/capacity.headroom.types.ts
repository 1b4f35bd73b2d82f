// The shapes of a headroom computation: its answer (per request, per tree, stranded capacity) and what
// its stages hand each other (patterns, trees, the demands per class, the keys of provider and class).
import type { Candidate, CandidateRequest, GroupPlan } from '../candidates/index.js';
import type { DataVersion } from '../../db/changes.js';

export type StrandedReason = 'OTHER_CLASS' | 'TOO_SMALL' | 'MAX_UNIT' | 'MIN_UNIT' | 'STEP_SIZE' | 'NOT_ELIGIBLE';

export interface StrandedPart {
  reason: StrandedReason;
  amount: number;
  providerCount: number;
}

/** Free capacity of one class that no further instance of the request can use, once `fits` are placed. */
export interface StrandedClass {
  resourceClass: string;
  /** Free before the placements (inventories of this class in reach of the request's classes). */
  free: number;
  /** Free left after placing `fits` instances. */
  left: number;
  /** What is left, all of it stranded, by reason. */
  reasons: StrandedPart[];
}

/** Count of one tree (the anchor of the request's candidates). */
export interface TreeHeadroom {
  root: number;
  fits: number;
  atMost: number;
  exact: boolean;
  /** Whether some candidate of this tree uses a provider that candidates of other trees use too. */
  shares: boolean;
}

export interface HeadroomResult {
  fits: number;
  atMost: number;
  exact: boolean;
  /** Whether sharing providers couple trees (their figures are bounded, not solved together). */
  sharing: boolean;
  trees: TreeHeadroom[];
  stranded: StrandedClass[];
  /** The first `first` allocation requests of the plan, in order (each valid on what the earlier ones leave). */
  plan(first?: number): CandidateRequest[];
}

export interface Pattern {
  candidate: Candidate;
  /** Global key indices (provider x class) and the amount of each. */
  keys: number[];
  amounts: number[];
}

export interface TreeWork {
  root: number;
  patterns: Pattern[];
  /** Whether the enumeration listed every candidate of the tree. */
  listed: boolean;
  /** Candidates Placement lists that its PUT /allocations refuses (summed amounts against min_unit or step_size). */
  refused: Pattern[];
  /** Keys the tree's options reach (for its bound): key -> class position. */
  reach: number[];
  counts: number[];
  fits: number;
  atMost: number;
  proven: boolean;
  /** The keys its candidates use (each once). */
  usedKeys: number[];
}

/** What a request asks per class: the total per instance and the pieces (one per group asking it). */
export interface ClassDemand {
  classId: number;
  name: string;
  total: number;
  pieces: number[];
  minPiece: number;
}

export class Keys {
  readonly index = new Map<number, number>();
  readonly provider: number[] = [];
  readonly classPos: number[] = [];
  readonly free: number[] = [];

  constructor(private readonly classCount: number) {}

  of(provider: number, classPos: number, free: () => number): number {
    const id = provider * this.classCount + classPos;
    let k = this.index.get(id);
    if (k === undefined) {
      k = this.provider.length;
      this.index.set(id, k);
      this.provider.push(provider);
      this.classPos.push(classPos);
      this.free.push(free());
    }
    return k;
  }
}

export interface SolveState {
  version: DataVersion;
  plans: GroupPlan[];
  demands: ClassDemand[];
  posOf: Map<number, number>;
  keys: Keys;
  /** Roots where every group has options, in order. */
  anchors: number[];
  /** Each anchor's tree, solved alone on the free capacity of `version`. */
  trees: Map<number, TreeWork>;
  /**
   * Keys of sharing providers (the only ones candidates of several trees can use): the trees whose
   * candidates use each, and what their solutions alone take of it.
   */
  users: Map<number, { roots: Set<number>; taken: number }>;
  /** The keys some tree's options reach (how many trees), and their free capacity summed per class. */
  reach: Map<number, number>;
  reachSums: ReachSums;
}

/** Free capacity and whole pieces per class over some keys. */
export interface ReachSums {
  sums: number[];
  pieces: number[];
}
