// Rebuild pre-flight (image traits seed, Nova's ComputeTaskManager._validate_image_traits_for_rebuild):
// rebuilding a server with a new image on the same host must not need traits the host cannot give.
import type { Db } from '../../db/client.js';
import { all, get } from '../../db/sql.js';
import type { FlavorRow } from '../flavors/flavors.service.js';
import { extraSpecsOfFlavors } from '../flavors/flavors.service.js';
import { ImageMetaError, parseImageMeta } from './nova-image-meta.js';
import { propertiesOfImages, type ImageRow } from './images.service.js';

export interface RebuildCheck {
  /** Whether Nova lets the rebuild go on to the scheduler. */
  allowed: boolean;
  /** Nova's NoValidHost text when it refuses, or why the image cannot be read. */
  reason: string | null;
  /** Traits the new image requires, sorted. */
  imageTraits: string[];
  /** Image traits the flavor forbids (trait[S]:NAME=forbidden in any group), sorted. */
  forbiddenTraits: string[];
  /** Image traits none of the providers of the consumer's allocations has, sorted. */
  missingTraits: string[];
  /** Ids of the providers the consumer has allocations on (those Nova looks at). */
  providerIds: number[];
}

const FORBIDDEN = 'Image traits are part of forbidden traits in flavor associated with the server. Either specify a different image during rebuild or create a new server with the specified image and a compatible flavor.';
const MISSING = 'Image traits cannot be satisfied by the current resource providers. Either specify a different image during rebuild or create a new server with the specified image.';
const refused = (reason: string) => `No valid host was found. ${reason}`;

/**
 * Nova's pre-flight for a rebuild with a new image: it refuses when an image trait is forbidden by the
 * flavor, then when image traits are missing from the providers the server's allocations are on (only
 * those: a trait on another provider of the same tree does not count). An image without traits passes
 * without looking at the allocations.
 */
export function rebuildCheck(db: Db, consumerUuid: string, flavor: FlavorRow, image: ImageRow): RebuildCheck {
  const result: RebuildCheck = { allowed: true, reason: null, imageTraits: [], forbiddenTraits: [], missingTraits: [], providerIds: [] };
  let traitsRequired: string[];
  try {
    traitsRequired = parseImageMeta(propertiesOfImages(db, [image.id]).map((p) => [p.key, p.value] as const)).traitsRequired;
  } catch (error) {
    if (!(error instanceof ImageMetaError)) throw error;
    return { ...result, allowed: false, reason: `Invalid image metadata. Error: ${error.message}` };
  }
  const imageTraits = [...new Set(traitsRequired)].sort();
  result.imageTraits = imageTraits;
  if (imageTraits.length === 0) return result;

  // Any key starting with "trait" counts, whatever its group suffix looks like.
  const forbidden = new Set(
    extraSpecsOfFlavors(db, [flavor.id])
      .filter((s) => s.key.startsWith('trait') && s.key.includes(':') && s.value === 'forbidden')
      .map((s) => s.key.slice(s.key.indexOf(':') + 1)),
  );
  result.forbiddenTraits = imageTraits.filter((t) => forbidden.has(t));
  if (result.forbiddenTraits.length) return { ...result, allowed: false, reason: refused(FORBIDDEN) };

  const consumer = get<{ id: number }>(db, 'SELECT id FROM consumers WHERE uuid = ?', consumerUuid);
  const providerIds = consumer ? all<{ id: number }>(db, 'SELECT DISTINCT resource_provider_id AS id FROM allocations WHERE consumer_id = ? ORDER BY 1', consumer.id).map((r) => r.id) : [];
  const present = new Set(
    all<{ name: string }>(
      db,
      'SELECT DISTINCT t.name FROM provider_traits pt JOIN traits t ON t.id = pt.trait_id WHERE pt.resource_provider_id IN (SELECT DISTINCT resource_provider_id FROM allocations WHERE consumer_id = ?)',
      consumer?.id ?? null,
    ).map((r) => r.name),
  );
  result.providerIds = providerIds;
  result.missingTraits = imageTraits.filter((t) => !present.has(t));
  if (result.missingTraits.length) return { ...result, allowed: false, reason: refused(MISSING) };
  return result;
}
