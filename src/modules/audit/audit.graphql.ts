// The audit of the cloud as it is: a query over the database (the mirror in gateway mode).
import { builder } from '../../builder.js';
import { audit, type AuditFinding, type AuditReport } from './audit.service.js';

const AuditKindEnum = builder.enumType('AuditKind', {
  description: 'What an audit finding is about.',
  values: {
    FLAVOR_EXTRA_SPEC: { description: "A flavor's extra spec the registry refuses (Nova checks them only when they are set, and only since 2.86)." },
    IMAGE_PROPERTY: { description: 'An image property Nova ignores or refuses, or a required trait Placement does not know (Glance never checks them).' },
    UNSCHEDULABLE: { description: 'A flavor (and image) whose boot request can match no provider of the cloud as it is.' },
    NODE_TRAIT_DRIFT: { description: "A bare-metal node whose traits differ from its provider's." },
    ORPHANED_ALLOCATION: { description: 'An allocation whose instance Nova no longer has (needs the servers mirrored from Nova).' },
  } as const,
});

const AuditFindingRef = builder.objectRef<AuditFinding>('AuditFinding').implement({
  description: 'One finding of the audit; every kind is an error (placement-gql audit exits 1 when there is one).',
  fields: (t) => ({
    kind: t.field({ type: AuditKindEnum, description: 'What it is about.', resolve: (f) => f.kind }),
    subject: t.exposeString('subject', { description: 'The flavor name, image name, node uuid or consumer uuid.' }),
    image: t.string({ nullable: true, description: 'UNSCHEDULABLE: the image of the flavor and image pair (null: the flavor alone).', resolve: (f) => f.image }),
    key: t.string({ nullable: true, description: 'The extra spec or property key, when there is one.', resolve: (f) => f.key }),
    message: t.exposeString('message', { description: 'What is wrong, and why it matters.' }),
  }),
});

const AuditReportRef = builder.objectRef<AuditReport>('AuditReport').implement({
  description: 'What the audit found.',
  fields: (t) => ({
    findings: t.field({ type: [AuditFindingRef], description: 'The findings, by kind, then subject.', resolve: (r) => r.findings }),
    notes: t.exposeStringList('notes', { description: 'What the audit could not look at, and why.' }),
  }),
});

builder.queryField('audit', (t) =>
  t.field({
    type: AuditReportRef,
    description:
      'Audits the cloud as it is: flavor extra specs, image properties, flavor and image pairs that fit no provider, node trait drift, and allocations whose instance is gone.',
    resolve: (_root, _args, ctx) => audit(ctx.db),
  }),
);
