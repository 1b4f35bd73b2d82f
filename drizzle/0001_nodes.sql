CREATE TABLE `baremetal_nodes` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`uuid` text NOT NULL,
	`name` text,
	`resource_class` text NOT NULL,
	`provision_state` text NOT NULL,
	`instance_uuid` text,
	`instance_traits` text DEFAULT '[]' NOT NULL,
	`resource_provider_id` integer NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	`updated_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	FOREIGN KEY (`resource_provider_id`) REFERENCES `resource_providers`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `baremetal_nodes_uuid_unique` ON `baremetal_nodes` (`uuid`);--> statement-breakpoint
CREATE UNIQUE INDEX `baremetal_nodes_name_unique` ON `baremetal_nodes` (`name`);--> statement-breakpoint
CREATE UNIQUE INDEX `baremetal_nodes_instance_uuid_unique` ON `baremetal_nodes` (`instance_uuid`);--> statement-breakpoint
CREATE UNIQUE INDEX `baremetal_nodes_resource_provider_id_unique` ON `baremetal_nodes` (`resource_provider_id`);--> statement-breakpoint
CREATE INDEX `baremetal_nodes_resource_class_idx` ON `baremetal_nodes` (`resource_class`);--> statement-breakpoint
CREATE INDEX `baremetal_nodes_provision_state_idx` ON `baremetal_nodes` (`provision_state`);--> statement-breakpoint
CREATE TABLE `node_traits` (
	`node_id` integer NOT NULL,
	`trait` text NOT NULL,
	PRIMARY KEY(`node_id`, `trait`),
	FOREIGN KEY (`node_id`) REFERENCES `baremetal_nodes`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `node_traits_trait_idx` ON `node_traits` (`trait`);