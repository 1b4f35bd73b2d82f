-- The change log's triggers (see src/db/changes.tables.ts): every write to a table caches read is logged,
-- with the provider it concerns, unless a bulk write logs itself once as 'all'.
INSERT INTO `change_log_mode` (`id`, `bulk`) VALUES (1, 0);
--> statement-breakpoint
CREATE TRIGGER `allocations_insert_log` AFTER INSERT ON `allocations` WHEN (SELECT `bulk` FROM `change_log_mode` WHERE `id` = 1) = 0 BEGIN
  INSERT INTO `change_log` (`kind`, `provider_id`) VALUES ('usage', NEW.`resource_provider_id`);
END;
--> statement-breakpoint
CREATE TRIGGER `allocations_delete_log` AFTER DELETE ON `allocations` WHEN (SELECT `bulk` FROM `change_log_mode` WHERE `id` = 1) = 0 BEGIN
  INSERT INTO `change_log` (`kind`, `provider_id`) VALUES ('usage', OLD.`resource_provider_id`);
END;
--> statement-breakpoint
CREATE TRIGGER `allocations_update_log` AFTER UPDATE ON `allocations` WHEN (SELECT `bulk` FROM `change_log_mode` WHERE `id` = 1) = 0 BEGIN
  INSERT INTO `change_log` (`kind`, `provider_id`) VALUES ('usage', NEW.`resource_provider_id`);
  INSERT INTO `change_log` (`kind`, `provider_id`) SELECT 'usage', OLD.`resource_provider_id` WHERE OLD.`resource_provider_id` IS NOT NEW.`resource_provider_id`;
END;
--> statement-breakpoint
CREATE TRIGGER `inventories_insert_log` AFTER INSERT ON `inventories` WHEN (SELECT `bulk` FROM `change_log_mode` WHERE `id` = 1) = 0 BEGIN
  INSERT INTO `change_log` (`kind`, `provider_id`) VALUES ('inventory', NEW.`resource_provider_id`);
END;
--> statement-breakpoint
CREATE TRIGGER `inventories_delete_log` AFTER DELETE ON `inventories` WHEN (SELECT `bulk` FROM `change_log_mode` WHERE `id` = 1) = 0 BEGIN
  INSERT INTO `change_log` (`kind`, `provider_id`) VALUES ('inventory', OLD.`resource_provider_id`);
END;
--> statement-breakpoint
CREATE TRIGGER `inventories_update_log` AFTER UPDATE ON `inventories` WHEN (SELECT `bulk` FROM `change_log_mode` WHERE `id` = 1) = 0 BEGIN
  INSERT INTO `change_log` (`kind`, `provider_id`) VALUES ('inventory', NEW.`resource_provider_id`);
  INSERT INTO `change_log` (`kind`, `provider_id`) SELECT 'inventory', OLD.`resource_provider_id` WHERE OLD.`resource_provider_id` IS NOT NEW.`resource_provider_id`;
END;
--> statement-breakpoint
CREATE TRIGGER `provider_traits_insert_log` AFTER INSERT ON `provider_traits` WHEN (SELECT `bulk` FROM `change_log_mode` WHERE `id` = 1) = 0 BEGIN
  INSERT INTO `change_log` (`kind`, `provider_id`) VALUES ('traits', NEW.`resource_provider_id`);
END;
--> statement-breakpoint
CREATE TRIGGER `provider_traits_delete_log` AFTER DELETE ON `provider_traits` WHEN (SELECT `bulk` FROM `change_log_mode` WHERE `id` = 1) = 0 BEGIN
  INSERT INTO `change_log` (`kind`, `provider_id`) VALUES ('traits', OLD.`resource_provider_id`);
END;
--> statement-breakpoint
CREATE TRIGGER `provider_traits_update_log` AFTER UPDATE ON `provider_traits` WHEN (SELECT `bulk` FROM `change_log_mode` WHERE `id` = 1) = 0 BEGIN
  INSERT INTO `change_log` (`kind`, `provider_id`) VALUES ('traits', NEW.`resource_provider_id`);
  INSERT INTO `change_log` (`kind`, `provider_id`) SELECT 'traits', OLD.`resource_provider_id` WHERE OLD.`resource_provider_id` IS NOT NEW.`resource_provider_id`;
END;
--> statement-breakpoint
CREATE TRIGGER `provider_aggregates_insert_log` AFTER INSERT ON `provider_aggregates` WHEN (SELECT `bulk` FROM `change_log_mode` WHERE `id` = 1) = 0 BEGIN
  INSERT INTO `change_log` (`kind`, `provider_id`) VALUES ('aggregates', NEW.`resource_provider_id`);
END;
--> statement-breakpoint
CREATE TRIGGER `provider_aggregates_delete_log` AFTER DELETE ON `provider_aggregates` WHEN (SELECT `bulk` FROM `change_log_mode` WHERE `id` = 1) = 0 BEGIN
  INSERT INTO `change_log` (`kind`, `provider_id`) VALUES ('aggregates', OLD.`resource_provider_id`);
END;
--> statement-breakpoint
CREATE TRIGGER `provider_aggregates_update_log` AFTER UPDATE ON `provider_aggregates` WHEN (SELECT `bulk` FROM `change_log_mode` WHERE `id` = 1) = 0 BEGIN
  INSERT INTO `change_log` (`kind`, `provider_id`) VALUES ('aggregates', NEW.`resource_provider_id`);
  INSERT INTO `change_log` (`kind`, `provider_id`) SELECT 'aggregates', OLD.`resource_provider_id` WHERE OLD.`resource_provider_id` IS NOT NEW.`resource_provider_id`;
END;
--> statement-breakpoint
CREATE TRIGGER `resource_providers_insert_log` AFTER INSERT ON `resource_providers` WHEN (SELECT `bulk` FROM `change_log_mode` WHERE `id` = 1) = 0 BEGIN
  INSERT INTO `change_log` (`kind`, `provider_id`) VALUES ('provider', NEW.`id`);
END;
--> statement-breakpoint
CREATE TRIGGER `resource_providers_delete_log` AFTER DELETE ON `resource_providers` WHEN (SELECT `bulk` FROM `change_log_mode` WHERE `id` = 1) = 0 BEGIN
  INSERT INTO `change_log` (`kind`, `provider_id`) VALUES ('provider', OLD.`id`);
END;
--> statement-breakpoint
CREATE TRIGGER `resource_providers_update_log` AFTER UPDATE ON `resource_providers` WHEN (SELECT `bulk` FROM `change_log_mode` WHERE `id` = 1) = 0
  AND (OLD.`name` IS NOT NEW.`name` OR OLD.`parent_id` IS NOT NEW.`parent_id` OR OLD.`root_id` IS NOT NEW.`root_id` OR OLD.`uuid` IS NOT NEW.`uuid`) BEGIN
  INSERT INTO `change_log` (`kind`, `provider_id`) VALUES ('provider', NEW.`id`);
END;
--> statement-breakpoint
CREATE TRIGGER `consumers_insert_log` AFTER INSERT ON `consumers` WHEN (SELECT `bulk` FROM `change_log_mode` WHERE `id` = 1) = 0 BEGIN
  INSERT INTO `change_log` (`kind`) VALUES ('consumer');
END;
--> statement-breakpoint
CREATE TRIGGER `consumers_delete_log` AFTER DELETE ON `consumers` WHEN (SELECT `bulk` FROM `change_log_mode` WHERE `id` = 1) = 0 BEGIN
  INSERT INTO `change_log` (`kind`) VALUES ('consumer');
END;
--> statement-breakpoint
CREATE TRIGGER `consumers_update_log` AFTER UPDATE ON `consumers` WHEN (SELECT `bulk` FROM `change_log_mode` WHERE `id` = 1) = 0 BEGIN
  INSERT INTO `change_log` (`kind`) VALUES ('consumer');
END;
--> statement-breakpoint
CREATE TRIGGER `traits_insert_log` AFTER INSERT ON `traits` WHEN (SELECT `bulk` FROM `change_log_mode` WHERE `id` = 1) = 0 BEGIN
  INSERT INTO `change_log` (`kind`) VALUES ('names');
END;
--> statement-breakpoint
CREATE TRIGGER `traits_delete_log` AFTER DELETE ON `traits` WHEN (SELECT `bulk` FROM `change_log_mode` WHERE `id` = 1) = 0 BEGIN
  INSERT INTO `change_log` (`kind`) VALUES ('names');
END;
--> statement-breakpoint
CREATE TRIGGER `traits_update_log` AFTER UPDATE ON `traits` WHEN (SELECT `bulk` FROM `change_log_mode` WHERE `id` = 1) = 0 BEGIN
  INSERT INTO `change_log` (`kind`) VALUES ('names');
END;
--> statement-breakpoint
CREATE TRIGGER `resource_classes_insert_log` AFTER INSERT ON `resource_classes` WHEN (SELECT `bulk` FROM `change_log_mode` WHERE `id` = 1) = 0 BEGIN
  INSERT INTO `change_log` (`kind`) VALUES ('names');
END;
--> statement-breakpoint
CREATE TRIGGER `resource_classes_delete_log` AFTER DELETE ON `resource_classes` WHEN (SELECT `bulk` FROM `change_log_mode` WHERE `id` = 1) = 0 BEGIN
  INSERT INTO `change_log` (`kind`) VALUES ('names');
END;
--> statement-breakpoint
CREATE TRIGGER `resource_classes_update_log` AFTER UPDATE ON `resource_classes` WHEN (SELECT `bulk` FROM `change_log_mode` WHERE `id` = 1) = 0 BEGIN
  INSERT INTO `change_log` (`kind`) VALUES ('names');
END;
--> statement-breakpoint
CREATE TRIGGER `flavors_insert_log` AFTER INSERT ON `flavors` WHEN (SELECT `bulk` FROM `change_log_mode` WHERE `id` = 1) = 0 BEGIN
  INSERT INTO `change_log` (`kind`) VALUES ('flavors');
END;
--> statement-breakpoint
CREATE TRIGGER `flavors_delete_log` AFTER DELETE ON `flavors` WHEN (SELECT `bulk` FROM `change_log_mode` WHERE `id` = 1) = 0 BEGIN
  INSERT INTO `change_log` (`kind`) VALUES ('flavors');
END;
--> statement-breakpoint
CREATE TRIGGER `flavors_update_log` AFTER UPDATE ON `flavors` WHEN (SELECT `bulk` FROM `change_log_mode` WHERE `id` = 1) = 0 BEGIN
  INSERT INTO `change_log` (`kind`) VALUES ('flavors');
END;
--> statement-breakpoint
CREATE TRIGGER `flavor_extra_specs_insert_log` AFTER INSERT ON `flavor_extra_specs` WHEN (SELECT `bulk` FROM `change_log_mode` WHERE `id` = 1) = 0 BEGIN
  INSERT INTO `change_log` (`kind`) VALUES ('flavors');
END;
--> statement-breakpoint
CREATE TRIGGER `flavor_extra_specs_delete_log` AFTER DELETE ON `flavor_extra_specs` WHEN (SELECT `bulk` FROM `change_log_mode` WHERE `id` = 1) = 0 BEGIN
  INSERT INTO `change_log` (`kind`) VALUES ('flavors');
END;
--> statement-breakpoint
CREATE TRIGGER `flavor_extra_specs_update_log` AFTER UPDATE ON `flavor_extra_specs` WHEN (SELECT `bulk` FROM `change_log_mode` WHERE `id` = 1) = 0 BEGIN
  INSERT INTO `change_log` (`kind`) VALUES ('flavors');
END;
