// What an explanation of candidates says: per tree, per group and per provider, the checks made and
// the problems found, with their numbers (the shapes explainCandidates answers with).
export type ProblemKind =
  | 'NO_INVENTORY'
  | 'CAPACITY_EXCEEDED'
  | 'BELOW_MIN_UNIT'
  | 'ABOVE_MAX_UNIT'
  | 'STEP_SIZE'
  | 'REQUIRED_TRAIT_MISSING'
  | 'ANY_OF_UNMET'
  | 'FORBIDDEN_TRAIT'
  | 'NOT_IN_AGGREGATE'
  | 'IN_FORBIDDEN_AGGREGATE'
  | 'NOT_IN_TREE'
  | 'ROOT_REQUIRED_MISSING'
  | 'ROOT_FORBIDDEN_PRESENT'
  | 'RESOURCELESS_GROUP'
  | 'ISOLATE'
  | 'SAME_SUBTREE'
  | 'SUMMED_CAPACITY'
  | 'SHARING_ONLY';

export interface CandidateProblem {
  kind: ProblemKind;
  message: string;
  /** The group's suffix ("" = unsuffixed); null for the tree as a whole. */
  group: string | null;
  providerId: number | null;
  resourceClass: string | null;
  amount: number | null;
  capacity: number | null;
  used: number | null;
  traits: string[];
  aggregates: string[];
  /** Not in the answer: the missing traits are in the tree, only not on a provider giving resources (closer than absent). */
  inTree?: boolean;
}

export interface ResourceCheck {
  resourceClass: string;
  amount: number;
  /** null when the provider has no inventory of the class. */
  capacity: number | null;
  used: number | null;
  minUnit: number | null;
  maxUnit: number | null;
  stepSize: number | null;
  fits: boolean;
}

export interface ProviderCheck {
  providerId: number;
  /** Reached through a shared aggregate rather than being in the tree. */
  sharing: boolean;
  usable: boolean;
  resources: ResourceCheck[];
  problems: CandidateProblem[];
}

export interface GroupExplanation {
  suffix: string;
  satisfied: boolean;
  /** Ways the group can be satisfied in this tree (before combining groups). */
  choices: number;
  providers: ProviderCheck[];
  problems: CandidateProblem[];
}

export interface TreeExplanation {
  rootId: number;
  rootUuid: string;
  /** Some allocation request belongs to the tree (see Explainer.settle). */
  candidate: boolean;
  /** Allocation requests belonging to this tree (one of sharing providers of several trees alone: in the first). */
  allocationRequests: number;
  /** Everything that keeps the tree from being a candidate (empty when it is one). */
  problems: CandidateProblem[];
  groups: GroupExplanation[];
}

export interface ReasonCount {
  kind: ProblemKind;
  group: string | null;
  resourceClass: string | null;
  traits: string[];
  aggregates: string[];
  /** The reason in words, for every tree it applies to. */
  description: string;
  /** Trees kept out by this reason (a tree counts once per reason). */
  trees: number;
  /** Their roots, in root order. */
  rootIds: number[];
  example: string;
}

export interface CandidatesExplanation {
  trees: TreeExplanation[];
  candidateTrees: number;
  reasons: ReasonCount[];
  /** When no tree is a candidate: the trees with the fewest reasons against them, nearest first. */
  closest: TreeExplanation[];
  /** Why nothing (or what) fits, in a few sentences. */
  summary: string;
}
