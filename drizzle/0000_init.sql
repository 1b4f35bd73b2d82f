CREATE TABLE `aggregates` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`uuid` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `aggregates_uuid_unique` ON `aggregates` (`uuid`);--> statement-breakpoint
CREATE TABLE `allocations` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`resource_provider_id` integer NOT NULL,
	`consumer_id` integer NOT NULL,
	`resource_class_id` integer NOT NULL,
	`used` integer NOT NULL,
	FOREIGN KEY (`resource_provider_id`) REFERENCES `resource_providers`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`consumer_id`) REFERENCES `consumers`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`resource_class_id`) REFERENCES `resource_classes`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `allocations_provider_class_idx` ON `allocations` (`resource_provider_id`,`resource_class_id`);--> statement-breakpoint
CREATE INDEX `allocations_consumer_idx` ON `allocations` (`consumer_id`);--> statement-breakpoint
CREATE INDEX `allocations_class_idx` ON `allocations` (`resource_class_id`);--> statement-breakpoint
CREATE TABLE `consumers` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`uuid` text NOT NULL,
	`project_id` text NOT NULL,
	`user_id` text NOT NULL,
	`consumer_type` text DEFAULT 'INSTANCE' NOT NULL,
	`generation` integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `consumers_uuid_unique` ON `consumers` (`uuid`);--> statement-breakpoint
CREATE INDEX `consumers_project_idx` ON `consumers` (`project_id`);--> statement-breakpoint
CREATE INDEX `consumers_user_idx` ON `consumers` (`user_id`);--> statement-breakpoint
CREATE INDEX `consumers_type_idx` ON `consumers` (`consumer_type`);--> statement-breakpoint
CREATE TABLE `inventories` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`resource_provider_id` integer NOT NULL,
	`resource_class_id` integer NOT NULL,
	`total` integer NOT NULL,
	`reserved` integer DEFAULT 0 NOT NULL,
	`min_unit` integer DEFAULT 1 NOT NULL,
	`max_unit` integer DEFAULT 2147483647 NOT NULL,
	`step_size` integer DEFAULT 1 NOT NULL,
	`allocation_ratio` real DEFAULT 1 NOT NULL,
	FOREIGN KEY (`resource_provider_id`) REFERENCES `resource_providers`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`resource_class_id`) REFERENCES `resource_classes`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `inventories_provider_class_uq` ON `inventories` (`resource_provider_id`,`resource_class_id`);--> statement-breakpoint
CREATE INDEX `inventories_class_idx` ON `inventories` (`resource_class_id`);--> statement-breakpoint
CREATE TABLE `provider_aggregates` (
	`resource_provider_id` integer NOT NULL,
	`aggregate_id` integer NOT NULL,
	PRIMARY KEY(`resource_provider_id`, `aggregate_id`),
	FOREIGN KEY (`resource_provider_id`) REFERENCES `resource_providers`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`aggregate_id`) REFERENCES `aggregates`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `provider_aggregates_aggregate_idx` ON `provider_aggregates` (`aggregate_id`);--> statement-breakpoint
CREATE TABLE `provider_traits` (
	`resource_provider_id` integer NOT NULL,
	`trait_id` integer NOT NULL,
	PRIMARY KEY(`resource_provider_id`, `trait_id`),
	FOREIGN KEY (`resource_provider_id`) REFERENCES `resource_providers`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`trait_id`) REFERENCES `traits`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `provider_traits_trait_idx` ON `provider_traits` (`trait_id`);--> statement-breakpoint
CREATE TABLE `resource_classes` (
	`id` integer PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`standard` integer DEFAULT false NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `resource_classes_name_unique` ON `resource_classes` (`name`);--> statement-breakpoint
CREATE TABLE `resource_providers` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`uuid` text NOT NULL,
	`name` text NOT NULL,
	`generation` integer DEFAULT 0 NOT NULL,
	`parent_id` integer,
	`root_id` integer,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	`updated_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	FOREIGN KEY (`parent_id`) REFERENCES `resource_providers`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`root_id`) REFERENCES `resource_providers`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `resource_providers_uuid_unique` ON `resource_providers` (`uuid`);--> statement-breakpoint
CREATE UNIQUE INDEX `resource_providers_name_unique` ON `resource_providers` (`name`);--> statement-breakpoint
CREATE INDEX `resource_providers_parent_idx` ON `resource_providers` (`parent_id`);--> statement-breakpoint
CREATE INDEX `resource_providers_root_idx` ON `resource_providers` (`root_id`);--> statement-breakpoint
CREATE TABLE `traits` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`name` text NOT NULL,
	`standard` integer DEFAULT false NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `traits_name_unique` ON `traits` (`name`);