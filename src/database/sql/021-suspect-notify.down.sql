DROP TRIGGER IF EXISTS actions_after_update_suspect ON actions;
DROP FUNCTION IF EXISTS aq_actions_after_update_suspect();
