// The structured allocation-candidate request, shared by the candidates search and its callers.
import type { ResourceAmount } from '../common/names.js';

export interface RequestGroupInput {
  /** null or "" = the unsuffixed group. */
  suffix?: string | null;
  resources?: ResourceAmount[] | null;
  required?: string[] | null;
  forbidden?: string[] | null;
  anyOf?: string[][] | null;
  memberOf?: string[][] | null;
  notMemberOf?: string[] | null;
  inTree?: string | null;
}

export type GroupPolicy = 'NONE' | 'ISOLATE';

export interface CandidatesRequestInput {
  groups: RequestGroupInput[];
  groupPolicy?: GroupPolicy | null;
  /** Lists of suffixes (each written with its leading underscore or digits, as in Placement). */
  sameSubtree?: string[][] | null;
  rootRequired?: string[] | null;
  rootForbidden?: string[] | null;
  limit?: number | null;
}
