// The snapshot format (`import` / `export`): one JSON object, the oracle's scenario shape plus
// generations, flavors, images, bare-metal nodes and provider-config records. Unknown keys are ignored.
import type { ConfigRecords } from '../provider-config/provider-config.service.js';

export type InventorySpec = number | Partial<{ total: number; reserved: number; min_unit: number; max_unit: number; step_size: number; allocation_ratio: number }>;

export interface SnapshotFlavor {
  name: string;
  vcpus: number;
  memory_mb: number;
  root_gb: number;
  ephemeral_gb?: number;
  swap_mb?: number;
  is_public?: boolean;
  extra_specs?: Record<string, string>;
}

export interface SnapshotImage {
  uuid: string;
  name: string;
  properties?: Record<string, string>;
}

export interface SnapshotNode {
  uuid: string;
  name?: string | null;
  resource_class: string;
  provision_state: string;
  instance_uuid?: string | null;
  instance_traits?: string[];
  traits?: string[];
}

export interface Snapshot {
  providers?: { uuid: string; name?: string; parent?: string | null; generation?: number }[];
  inventories?: Record<string, Record<string, InventorySpec>>;
  traits?: Record<string, string[]>;
  aggregates?: Record<string, string[]>;
  allocations?: Record<string, Record<string, Record<string, number>>>;
  /** A consumer's type defaults to INSTANCE, as in the oracle's scenarios; null is no type (written before Placement 1.38). */
  consumers?: Record<string, { project_id?: string; user_id?: string; consumer_type?: string | null; generation?: number }>;
  resource_classes?: string[];
  custom_traits?: string[];
  flavors?: SnapshotFlavor[];
  images?: SnapshotImage[];
  baremetal_nodes?: SnapshotNode[];
  /** What provider-config documents set (see applyProviderConfig): inventories and traits per provider, with the document. */
  provider_config?: ConfigRecords;
}
