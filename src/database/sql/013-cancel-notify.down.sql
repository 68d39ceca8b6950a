DROP TRIGGER IF EXISTS actions_after_cancel_request ON actions;
DROP FUNCTION IF EXISTS aq_actions_after_cancel_request();
