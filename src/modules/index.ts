// Every domain's GraphQL types; importing this registers them with the builder.
import './common/errors.graphql.js';
import './common/common.graphql.js';
import './providers/providers.graphql.js';
import './inventories/inventories.graphql.js';
import './resource-classes/resource-classes.graphql.js';
import './traits/traits.graphql.js';
import './aggregates/aggregates.graphql.js';
import './allocations/allocations.graphql.js';
import './changes/changes.graphql.js';
import './candidates/candidates.graphql.js';
import './provider-config/provider-config.graphql.js';
import './flavors/flavors.graphql.js';
import './images/images.graphql.js';
import './nodes/nodes.graphql.js';
import './capacity/capacity.graphql.js';
import './upstream/upstream.graphql.js';
import './audit/audit.graphql.js';
