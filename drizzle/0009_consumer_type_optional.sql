PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_consumers` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`uuid` text NOT NULL,
	`project_id` text NOT NULL,
	`user_id` text NOT NULL,
	`consumer_type` text,
	`generation` integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
INSERT INTO `__new_consumers`("id", "uuid", "project_id", "user_id", "consumer_type", "generation") SELECT "id", "uuid", "project_id", "user_id", "consumer_type", "generation" FROM `consumers`;--> statement-breakpoint
DROP TABLE `consumers`;--> statement-breakpoint
ALTER TABLE `__new_consumers` RENAME TO `consumers`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE UNIQUE INDEX `consumers_uuid_unique` ON `consumers` (`uuid`);--> statement-breakpoint
CREATE INDEX `consumers_project_idx` ON `consumers` (`project_id`);--> statement-breakpoint
CREATE INDEX `consumers_user_idx` ON `consumers` (`user_id`);--> statement-breakpoint
CREATE INDEX `consumers_type_idx` ON `consumers` (`consumer_type`);