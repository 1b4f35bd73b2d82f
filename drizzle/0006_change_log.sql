CREATE TABLE `change_log` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`kind` text NOT NULL,
	`provider_id` integer
);
--> statement-breakpoint
CREATE TABLE `change_log_mode` (
	`id` integer PRIMARY KEY NOT NULL,
	`bulk` integer DEFAULT 0 NOT NULL
);
