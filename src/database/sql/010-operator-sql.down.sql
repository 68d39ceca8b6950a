DROP TRIGGER IF EXISTS actions_after_update_wake ON actions;
DROP FUNCTION IF EXISTS aq_actions_after_update_wake();
DROP TRIGGER IF EXISTS actions_after_truncate ON actions;
DROP FUNCTION IF EXISTS aq_actions_after_truncate();
DROP TRIGGER IF EXISTS actions_before_truncate ON actions;
DROP FUNCTION IF EXISTS aq_actions_before_truncate();
