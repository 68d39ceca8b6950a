DROP TRIGGER IF EXISTS actions_payload_limit_update ON actions;
DROP TRIGGER IF EXISTS actions_payload_limit_insert ON actions;
DROP FUNCTION IF EXISTS aq_refuse_oversize_payload();
