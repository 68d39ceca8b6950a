-- Back to unbounded groups.
DROP TRIGGER IF EXISTS actions_after_insert_depth ON actions;
DROP FUNCTION IF EXISTS aq_actions_after_insert_depth();
DROP TABLE IF EXISTS action_group_depth_limits;
