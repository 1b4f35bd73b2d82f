-- The consumers table was rebuilt by the previous migration (its type became optional), which dropped
-- its change-log triggers: they are created again, as 0007_change_log_triggers made them.
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
