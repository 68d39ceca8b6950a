DROP TRIGGER IF EXISTS actions_after_delete_release ON actions;
DROP TRIGGER IF EXISTS actions_after_update_release ON actions;
DROP FUNCTION IF EXISTS aq_actions_after_release();
DROP FUNCTION IF EXISTS aq_promote_groups(bigint[], bigint[]);
