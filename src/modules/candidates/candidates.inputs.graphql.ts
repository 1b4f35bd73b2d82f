// The structured candidate request as GraphQL input (used by candidates and explainCandidates).
import { builder } from '../../builder.js';
import { ResourceAmountInput } from '../common/common.graphql.js';

const GroupPolicyEnum = builder.enumType('GroupPolicy', {
  description: 'How suffixed request groups may share providers (Placement\'s group_policy).',
  values: {
    NONE: { description: 'Suffixed groups may be satisfied by the same provider.' },
    ISOLATE: { description: 'Suffixed groups must be satisfied by different providers (the unsuffixed group is not constrained).' },
  } as const,
});

const RequestGroupInputRef = builder.inputType('RequestGroup', {
  description: 'One request group: `resources`, `required`, `member_of`, `in_tree` with one suffix.',
  fields: (t) => ({
    suffix: t.string({
      required: false,
      description: 'null or "" for the unsuffixed group (its classes may come from several providers of a tree and from sharing providers); else [a-zA-Z0-9_-]{1,64}, satisfied by one provider.',
    }),
    resources: t.field({ type: [ResourceAmountInput], required: false, description: 'The amounts; none for a resourceless group (allowed only in sameSubtree).' }),
    required: t.stringList({ required: false, description: 'Traits that the providers satisfying the group must have (together, for the unsuffixed group).' }),
    forbidden: t.stringList({ required: false, description: 'Traits that none of the providers satisfying the group may have.' }),
    anyOf: t.field({ type: t.listRef(t.listRef('String')), required: false, description: 'Sets of traits: at least one trait of each set (required=in:A,B).' }),
    memberOf: t.field({
      type: t.listRef(t.listRef('UUID')),
      required: false,
      description: 'Sets of aggregates: in one aggregate of each set (for the unsuffixed group, the provider or its root; sharing providers themselves).',
    }),
    notMemberOf: t.field({ type: ['UUID'], required: false, description: 'Aggregates that neither the provider nor (unsuffixed group) its root may be in.' }),
    inTree: t.field({ type: 'UUID', required: false, description: 'Only providers of the tree of this provider (any provider of the tree).' }),
  }),
});

export const CandidatesRequestInputRef = builder.inputType('CandidatesRequest', {
  description: 'An allocation-candidate request with the meaning of Placement microversion 1.39.',
  fields: (t) => ({
    groups: t.field({ type: [RequestGroupInputRef], required: true, description: 'The request groups, each suffix at most once.' }),
    groupPolicy: t.field({ type: GroupPolicyEnum, required: false, description: 'Required with two or more suffixed groups.' }),
    sameSubtree: t.field({
      type: t.listRef(t.listRef('String')),
      required: false,
      description: 'Sets of suffixes: the providers of the groups of a set all descend from one of them.',
    }),
    rootRequired: t.stringList({ required: false, description: "Traits the root of the candidate's tree must have." }),
    rootForbidden: t.stringList({ required: false, description: "Traits the root of the candidate's tree must not have." }),
    limit: t.int({ required: false, description: 'Return at most this many allocation requests (at least 1).' }),
  }),
});
