CREATE TABLE `provider_config_inventories` (
	`resource_provider_id` integer NOT NULL,
	`resource_class` text NOT NULL,
	`document` text NOT NULL,
	`total` integer NOT NULL,
	`reserved` integer NOT NULL,
	`min_unit` integer NOT NULL,
	`max_unit` integer NOT NULL,
	`step_size` integer NOT NULL,
	`allocation_ratio` real NOT NULL,
	`applied_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	PRIMARY KEY(`resource_provider_id`, `resource_class`),
	FOREIGN KEY (`resource_provider_id`) REFERENCES `resource_providers`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `provider_config_traits` (
	`resource_provider_id` integer NOT NULL,
	`trait` text NOT NULL,
	`document` text NOT NULL,
	`applied_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	PRIMARY KEY(`resource_provider_id`, `trait`),
	FOREIGN KEY (`resource_provider_id`) REFERENCES `resource_providers`(`id`) ON UPDATE no action ON DELETE cascade
);
