// The allocation-candidate request Nova 26 (Zed) builds for a server create from a flavor and an image:
// nova.scheduler.utils.ResourceRequest.from_request_spec after the default request filters, with its
// query string, the PCPU->VCPU fallback query, Nova's warnings, and the API checks of POST /servers
// that concern the request. In stages, one file each: the model (boot-request.model.ts), the hardware
// constraints (boot-request.hardware.ts), the request spec (boot-request.spec.ts), the query string
// (boot-request.query.ts) and the API checks (boot-request.api.ts); this file puts them together.
import { ImageMetaError, parseImageMeta, type NovaImageMeta } from '../images/nova-image-meta.js';
import { type FlavorSpec, type ImageSpec, type BootRequestOptions, type BootRequest, BootRequestError, Inputs } from './boot-request.model.js';
import { ephemeralEncryption, ephemeralEncryptionFormat } from './boot-request.hardware.js';
import { fromRequestSpec } from './boot-request.spec.js';
import { sorted, describe } from './boot-request.query.js';
import { apiChecks } from './boot-request.api.js';

export { BootRequestError, type BootRequest, type BootRequestGroup, type BootRequestOptions, type FlavorSpec, type ImageSpec, type PlacementQuery } from './boot-request.model.js';
export { parseCpuSpec } from './boot-request.hardware.js';

const GROUP_POLICY_WARNING =
  'There is more than one numbered request group in the allocation candidate query but the flavor did not specify any group policy. This query would fail in placement due to the missing group policy. If you specified more than one numbered request group in the flavor extra_spec then you need to specify the group policy in the flavor extra_spec. If it is OK to let these groups be satisfied by overlapping resource providers then use \'group_policy\': \'none\'. If you want each group to be satisfied from a separate resource provider then use \'group_policy\': \'isolate\'.';

/** Nova's image when the server has none: no properties. */
const NO_IMAGE: ImageSpec = { uuid: '155d900f-4e14-4e4c-a73d-069cbf4541e6', name: 'image', properties: [] };

/**
 * The request Nova's scheduler sends to GET /allocation_candidates for this flavor and image, with the
 * default configuration. Throws BootRequestError when Nova cannot build it (its error text).
 */
export function buildBootRequest(flavor: FlavorSpec, image: ImageSpec | null, options: BootRequestOptions = {}): BootRequest {
  const { uuid, name, properties } = image ?? NO_IMAGE;
  let meta: NovaImageMeta;
  try {
    meta = parseImageMeta(properties);
  } catch (error) {
    if (error instanceof ImageMetaError) throw new BootRequestError(`Invalid image metadata. Error: ${error.message}`);
    throw error;
  }
  const inputs = new Inputs(flavor, name, uuid, meta);
  let apiError: string | null = null;
  try {
    apiChecks(inputs);
  } catch (error) {
    if (!(error instanceof BootRequestError)) throw error;
    apiError = error.message;
  }

  // The request filters that apply with the default configuration.
  const rootRequired = new Set<string>();
  const rootForbidden = new Set(['COMPUTE_STATUS_DISABLED']);
  if (inputs.specs.get('accel:device_profile')) rootRequired.add('COMPUTE_ACCELERATORS');
  if (ephemeralEncryption(inputs)) {
    rootRequired.add('COMPUTE_EPHEMERAL_ENCRYPTION');
    const format = ephemeralEncryptionFormat(inputs);
    if (format) rootRequired.add(`COMPUTE_EPHEMERAL_ENCRYPTION_${format.toUpperCase()}`);
  }

  const warnings: string[] = [];
  const rr = fromRequestSpec(inputs, options, true, warnings);
  if (rr.suffixedGroups() >= 2 && !rr.groupPolicy) warnings.push(GROUP_POLICY_WARNING);
  const fallback = rr.cpuPinningRequested ? describe(fromRequestSpec(inputs, options, false, []), rootRequired, rootForbidden) : null;
  return {
    ...describe(rr, rootRequired, rootForbidden),
    fallback,
    imageTraitsRequired: sorted(new Set(meta.traitsRequired)),
    warnings,
    apiError,
  };
}
