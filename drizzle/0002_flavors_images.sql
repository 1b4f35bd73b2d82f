CREATE TABLE `flavor_extra_specs` (
	`flavor_id` integer NOT NULL,
	`key` text NOT NULL,
	`value` text NOT NULL,
	PRIMARY KEY(`flavor_id`, `key`),
	FOREIGN KEY (`flavor_id`) REFERENCES `flavors`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `flavors` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`name` text NOT NULL,
	`vcpus` integer NOT NULL,
	`memory_mb` integer NOT NULL,
	`root_gb` integer DEFAULT 0 NOT NULL,
	`ephemeral_gb` integer DEFAULT 0 NOT NULL,
	`swap_mb` integer DEFAULT 0 NOT NULL,
	`is_public` integer DEFAULT true NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `flavors_name_unique` ON `flavors` (`name`);--> statement-breakpoint
CREATE TABLE `image_properties` (
	`image_id` integer NOT NULL,
	`key` text NOT NULL,
	`value` text NOT NULL,
	PRIMARY KEY(`image_id`, `key`),
	FOREIGN KEY (`image_id`) REFERENCES `images`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `images` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`uuid` text NOT NULL,
	`name` text NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `images_uuid_unique` ON `images` (`uuid`);--> statement-breakpoint
CREATE UNIQUE INDEX `images_name_unique` ON `images` (`name`);