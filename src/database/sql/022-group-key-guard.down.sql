-- Back to unguarded action_group_keys (017 alone).
DROP TRIGGER IF EXISTS action_group_keys_before_truncate ON action_group_keys;
DROP FUNCTION IF EXISTS aq_action_group_keys_before_truncate();
DROP TRIGGER IF EXISTS action_group_keys_before_delete ON action_group_keys;
DROP TRIGGER IF EXISTS action_group_keys_before_update ON action_group_keys;
DROP FUNCTION IF EXISTS aq_action_group_keys_before_change();
