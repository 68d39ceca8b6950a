DROP TRIGGER IF EXISTS actions_after_insert_wake ON actions;
DROP FUNCTION IF EXISTS aq_actions_after_insert_wake();
DROP FUNCTION IF EXISTS aq_wake_workers();
