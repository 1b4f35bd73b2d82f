// GET /resource_providers/{uuid}/usages (handlers/usage.py): what is allocated of each class the
// provider has an inventory of.
import { inventoriesOf } from '../../modules/inventories/inventories.service.js';
import { providerByUuid } from '../../modules/providers/providers.service.js';
import { pyJsonDumps } from '../../rules/python-json.js';
import { PlacementError } from '../errors.js';
import { readPolicy, type Answer, type RestRequest } from '../request.js';

const PROVIDER_USAGES = readPolicy('placement:resource_providers:usages');

export function ofProvider(request: RestRequest): Answer {
  request.acceptJson();
  request.can(PROVIDER_USAGES);
  const uuid = request.params.uuid;
  const provider = providerByUuid(request.db, uuid);
  if (!provider) throw new PlacementError(404, `No resource provider with uuid ${uuid} found: No resource provider with uuid ${uuid} found`);
  const usages = Object.fromEntries(inventoriesOf(request.db, [provider.id]).map((i) => [i.resourceClass, i.used]));
  // Usage is "now": Placement answers with the time of the request.
  return { status: 200, body: pyJsonDumps({ resource_provider_generation: provider.generation, usages }), lastModified: new Date() };
}
