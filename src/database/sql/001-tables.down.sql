DROP TABLE IF EXISTS action_attempts;
DROP TABLE IF EXISTS action_groups;
DROP TABLE IF EXISTS actions;
