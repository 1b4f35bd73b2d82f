CREATE TABLE `mirror_skipped` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`source` text NOT NULL,
	`kind` text NOT NULL,
	`record` text NOT NULL,
	`reason` text NOT NULL,
	`provider` text
);
--> statement-breakpoint
CREATE INDEX `mirror_skipped_source_provider_idx` ON `mirror_skipped` (`source`,`provider`);