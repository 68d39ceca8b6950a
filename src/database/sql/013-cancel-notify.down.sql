DROP TRIGGER IF EXISTS action_attempts_before_insert_cancelled ON action_attempts;
DROP FUNCTION IF EXISTS aq_action_attempts_before_insert_cancelled();
DROP TRIGGER IF EXISTS actions_after_cancel_request ON actions;
DROP FUNCTION IF EXISTS aq_actions_after_cancel_request();
