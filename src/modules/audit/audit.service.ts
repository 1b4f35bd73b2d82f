// The audit: what the cloud already holds that Nova, Glance or Placement would not have let in, or
// that no longer fits together. Nova validates extra specs only when they are set, and only since
// compute 2.86; Glance never checks the trait properties of images; a node's traits drift from its
// provider's when someone changes the provider behind Ironic's back; an allocation outlives its
// instance when a delete half fails (what `nova-manage placement audit` looks for).
import type { Db } from '../../db/client.js';
import { all } from '../../db/sql.js';
import { extraSpecRegistry, unknownKeyMessage } from '../../catalog/extra-specs.js';
import { isStandardTrait } from '../../catalog/index.js';
import { customNameProblem, editDistance } from '../../rules/names.js';
import { extraSpecsOfFlavors, type FlavorRow } from '../flavors/flavors.service.js';
import { BootRequestError, buildBootRequest, type FlavorSpec, type ImageSpec } from '../flavors/boot-request.js';
import { bootCandidates } from '../flavors/boot-candidates.js';
import { propertiesOfImages, propertyWarnings, type ImageRow } from '../images/images.service.js';
import { misspelledProperty } from '../images/nova-image-meta.js';
import { nodeTraitDrift } from '../nodes/nodes.service.js';
import { DEFAULT_MAX_CANDIDATES } from '../candidates/index.js';

export type AuditKind = 'FLAVOR_EXTRA_SPEC' | 'IMAGE_PROPERTY' | 'UNSCHEDULABLE' | 'NODE_TRAIT_DRIFT' | 'ORPHANED_ALLOCATION';

export const AUDIT_KINDS: readonly AuditKind[] = ['FLAVOR_EXTRA_SPEC', 'IMAGE_PROPERTY', 'UNSCHEDULABLE', 'NODE_TRAIT_DRIFT', 'ORPHANED_ALLOCATION'];

export interface AuditFinding {
  kind: AuditKind;
  /** The flavor name, image name, node uuid or consumer uuid. */
  subject: string;
  /** UNSCHEDULABLE: the image of the flavor and image pair (null: no image). */
  image: string | null;
  /** The extra spec or property key, when there is one. */
  key: string | null;
  message: string;
}

export interface AuditReport {
  findings: AuditFinding[];
  /** What the audit could not look at, and why (e.g. no Nova servers mirrored). */
  notes: string[];
}

/**
 * How the extra specs are judged: as Nova's API validates them since 2.86 (its default, strict):
 * every value against its validator, and unknown keys in Nova's own namespaces (hw:, trait:...)
 * refused. Keys without a namespace or in another namespace are left alone, as Nova leaves them
 * (custom scheduler filters read them).
 */
export const AUDIT_EXTRA_SPEC_MODE = 'Nova 2.86 strict validation';

/**
 * Provider traits Nova's compute service sets itself (COMPUTE_NODE, COMPUTE_STATUS_DISABLED, the
 * driver's capability traits): they are on a bare-metal node's provider but never on the node.
 */
const NOVA_OWNED_TRAIT = /^COMPUTE_/;

const FLAVOR_COLUMNS = `f.id, f.name, f.vcpus, f.memory_mb AS memoryMb, f.root_gb AS rootGb, f.ephemeral_gb AS ephemeralGb,
  f.swap_mb AS swapMb, f.is_public AS isPublic, f.nova_id AS novaId, f.created_at AS createdAt`;

function flavorSpecs(db: Db): FlavorSpec[] {
  const flavors = all<FlavorRow>(db, `SELECT ${FLAVOR_COLUMNS} FROM flavors f ORDER BY f.name`);
  const specs = new Map<number, [string, string][]>();
  for (const s of extraSpecsOfFlavors(db, flavors.map((f) => f.id))) specs.set(s.flavorId, [...(specs.get(s.flavorId) ?? []), [s.key, s.value]]);
  return flavors.map((f) => ({ ...f, isPublic: !!f.isPublic, extraSpecs: specs.get(f.id) ?? [] }));
}

function imageSpecs(db: Db): ImageSpec[] {
  const images = all<ImageRow>(db, 'SELECT i.id, i.uuid, i.name, i.created_at AS createdAt FROM images i ORDER BY i.name');
  const props = new Map<number, [string, string][]>();
  for (const p of propertiesOfImages(db, images.map((i) => i.id))) props.set(p.imageId, [...(props.get(p.imageId) ?? []), [p.key, p.value]]);
  return images.map((i) => ({ uuid: i.uuid, name: i.name, properties: props.get(i.id) ?? [] }));
}

/** FLAVOR_EXTRA_SPEC: every extra spec Nova's validation (2.86, strict) refuses. */
export function flavorFindings(flavors: readonly FlavorSpec[]): AuditFinding[] {
  const registry = extraSpecRegistry();
  const findings: AuditFinding[] = [];
  for (const flavor of flavors) {
    const specs = flavor.extraSpecs.map(([key, value]) => ({ key, value }));
    // PERMISSIVE: invalid values (and Nova's schema) are errors, unknown keys only warnings...
    const errors = registry.check(specs, 'PERMISSIVE').errors;
    // ...of which those in a namespace Nova knows are refused by Nova; the others Nova accepts and
    // ignores, and one letter away from a spec Nova reads (hw_cpu_policy, hx:cpu_policy) they are a typo.
    for (const { key } of specs) {
      const kind = registry.classify(key);
      if (kind === 'unknown_in_known_namespace') errors.push({ key, message: unknownKeyMessage(key) });
      else if (kind !== 'registered') {
        const meant = registry.all.find((v) => !v.name.includes('{') && editDistance(key, v.name, 1) <= 1);
        if (meant) errors.push({ key, message: `Nova accepts and ignores '${key}': no extra spec has that name (${meant.name}?).` });
      }
    }
    const at = (key: string | null | undefined) => (key == null ? -1 : specs.findIndex((s) => s.key === key));
    errors.sort((a, b) => at(a.key) - at(b.key));
    for (const error of errors) {
      const value = flavor.extraSpecs.find(([k]) => k === error.key)?.[1];
      const rule = error.key ? registry.find(error.key)?.name : undefined;
      const what = error.key ? `${error.key}=${value ?? ''}` : 'extra specs';
      const judged = rule ? `rule ${rule}` : 'no rule in a namespace Nova knows';
      findings.push({ kind: 'FLAVOR_EXTRA_SPEC', subject: flavor.name, image: null, key: error.key ?? null, message: `${what} (${judged}; ${AUDIT_EXTRA_SPEC_MODE}): ${error.message}` });
    }
  }
  return findings;
}

/** IMAGE_PROPERTY: properties Nova ignores or refuses, and required traits Placement does not know. */
export function imageFindings(db: Db, images: readonly ImageSpec[]): AuditFinding[] {
  const known = new Set(all<{ name: string }>(db, 'SELECT name FROM traits').map((t) => t.name));
  const findings: AuditFinding[] = [];
  for (const image of images) {
    const properties = image.properties.map(([key, value]) => ({ key, value }));
    for (const w of propertyWarnings(properties)) findings.push({ kind: 'IMAGE_PROPERTY', subject: image.name, image: null, key: w.key ?? null, message: w.message });
    for (const { key, value } of properties) {
      const meant = misspelledProperty(key);
      if (meant) findings.push({ kind: 'IMAGE_PROPERTY', subject: image.name, image: null, key, message: `Nova ignores ${key}=${value}: it reads no such image property (${meant}?).` });
    }
    for (const { key, value } of properties) {
      if (!key.startsWith('trait:') || value !== 'required') continue;
      const trait = key.slice(6);
      // Names Placement could never know are reported by propertyWarnings already.
      if (known.has(trait) || (!isStandardTrait(trait) && customNameProblem(trait))) continue;
      findings.push({ kind: 'IMAGE_PROPERTY', subject: image.name, image: null, key, message: `Placement has no trait ${trait}: it refuses (400) every boot request from this image.` });
    }
  }
  return findings;
}

/** What Nova would send for the pair (the request, its VCPU fallback, a refusal), or why it cannot build it. */
const requestKey = (flavor: FlavorSpec, image: ImageSpec | null): string => {
  try {
    const r = buildBootRequest(flavor, image);
    return JSON.stringify([r.candidatesRequest, r.fallback?.candidatesRequest ?? null, r.apiError ?? null]);
  } catch (error) {
    if (error instanceof BootRequestError) return `error: ${error.message}`;
    throw error;
  }
};

/**
 * UNSCHEDULABLE: flavor and image pairs whose boot request finds no provider, with the reasons of
 * bootCandidates. Every flavor is tried without an image; an image is tried with a flavor only when
 * it changes that flavor's request (trait or resource-affecting properties) and the flavor alone
 * finds a provider. Flavors and images already reported for their extra specs or properties are
 * left out: that finding comes first.
 */
export async function unschedulableFindings(db: Db, flavors: readonly FlavorSpec[], images: readonly ImageSpec[]): Promise<AuditFinding[]> {
  const findings: AuditFinding[] = [];
  const options = { limit: 1, maxCandidates: DEFAULT_MAX_CANDIDATES };
  // Pairs asking the same of Placement are searched once.
  const searched = new Map<string, string[]>();
  const reasons = async (flavor: FlavorSpec, image: ImageSpec | null, key: string) => {
    let found = searched.get(key);
    if (!found) searched.set(key, (found = (await bootCandidates(db, flavor, image, options)).reasons));
    return found;
  };
  for (const flavor of flavors) {
    const plain = requestKey(flavor, null);
    const alone = await reasons(flavor, null, plain);
    if (alone.length) {
      findings.push({ kind: 'UNSCHEDULABLE', subject: flavor.name, image: null, key: null, message: alone.join(' ') });
      continue;
    }
    for (const image of images) {
      const key = requestKey(flavor, image);
      if (key === plain) continue;
      const pair = await reasons(flavor, image, key);
      if (pair.length) findings.push({ kind: 'UNSCHEDULABLE', subject: flavor.name, image: image.name, key: null, message: pair.join(' ') });
    }
  }
  return findings;
}

/** NODE_TRAIT_DRIFT: nodes whose provider's traits are not the node's (Nova's own COMPUTE_ traits aside). */
export function nodeFindings(db: Db): AuditFinding[] {
  const findings: AuditFinding[] = [];
  for (const drift of nodeTraitDrift(db)) {
    const unexpected = drift.unexpectedOnProvider.filter((t) => !NOVA_OWNED_TRAIT.test(t));
    if (drift.missingOnProvider.length === 0 && unexpected.length === 0) continue;
    const parts = [
      drift.missingOnProvider.length ? `its provider lacks ${drift.missingOnProvider.join(', ')}` : null,
      unexpected.length ? `its provider has ${unexpected.join(', ')}, which the node has not` : null,
    ].filter(Boolean);
    findings.push({ kind: 'NODE_TRAIT_DRIFT', subject: drift.node.uuid, image: null, key: null, message: `Node ${drift.node.name ?? drift.node.uuid}: ${parts.join('; ')}.` });
  }
  return findings;
}

/** Whether Nova's servers are mirrored in this database (gateway mode with a compute endpoint). */
export function serversMirrored(db: Db): boolean {
  return all(db, "SELECT 1 FROM mirrored_services WHERE service = 'servers'").length > 0;
}

/** ORPHANED_ALLOCATION: allocations of INSTANCE consumers Nova has no server for. */
export function orphanFindings(db: Db): AuditFinding[] {
  const rows = all<{ consumer: string; project: string; providers: string; resources: string }>(
    db,
    `SELECT c.uuid AS consumer, c.project_id AS project, group_concat(DISTINCT rp.name) AS providers,
            group_concat(rc.name || '=' || a.used) AS resources
     FROM consumers c JOIN allocations a ON a.consumer_id = c.id JOIN resource_providers rp ON rp.id = a.resource_provider_id
     JOIN resource_classes rc ON rc.id = a.resource_class_id
     WHERE c.consumer_type = 'INSTANCE' AND NOT EXISTS (SELECT 1 FROM servers s WHERE s.uuid = c.uuid)
     GROUP BY c.id ORDER BY c.uuid`,
  );
  return rows.map((r) => ({
    kind: 'ORPHANED_ALLOCATION' as const,
    subject: r.consumer,
    image: null,
    key: null,
    message: `Consumer ${r.consumer} (project ${r.project}) holds ${r.resources} on ${r.providers}, but Nova has no server ${r.consumer}: the allocation outlived its instance (nova-manage placement audit --delete removes it).`,
  }));
}

/** The whole audit, in kind order. */
export async function audit(db: Db): Promise<AuditReport> {
  const flavors = flavorSpecs(db);
  const images = imageSpecs(db);
  const flavorList = flavorFindings(flavors);
  const imageList = imageFindings(db, images);
  const flaggedFlavors = new Set(flavorList.map((f) => f.subject));
  const flaggedImages = new Set(imageList.map((f) => f.subject));
  const unschedulable = await unschedulableFindings(
    db,
    flavors.filter((f) => !flaggedFlavors.has(f.name)),
    images.filter((i) => !flaggedImages.has(i.name)),
  );
  const notes: string[] = [];
  let orphans: AuditFinding[] = [];
  if (serversMirrored(db)) orphans = orphanFindings(db);
  else notes.push('Orphaned allocations were not looked for: no Nova servers are mirrored in this database (gateway mode with a compute endpoint mirrors them).');
  return { findings: [...flavorList, ...imageList, ...unschedulable, ...nodeFindings(db), ...orphans], notes };
}
