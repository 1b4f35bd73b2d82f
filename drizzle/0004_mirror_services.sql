CREATE TABLE `servers` (
	`uuid` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`status` text NOT NULL,
	`flavor` text,
	`host` text,
	`project_id` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `servers_project_idx` ON `servers` (`project_id`);--> statement-breakpoint
CREATE TABLE `mirrored_services` (
	`service` text PRIMARY KEY NOT NULL,
	`url` text NOT NULL,
	`synced_at` text NOT NULL,
	`cursor` text,
	`refreshes` integer DEFAULT 0 NOT NULL
);
