-- Back to integer lock ids only. Refused while any action carries a string
-- key: its group would lose its name (its lock id stays in the reserved range).
DO $$ BEGIN
  IF EXISTS (SELECT 1 FROM actions WHERE group_key IS NOT NULL) THEN
    RAISE EXCEPTION 'actions: % actions carry a group_key; delete them (or wait for retention) before reverting 017-group-keys',
      (SELECT count(*) FROM actions WHERE group_key IS NOT NULL);
  END IF;
END $$;

DROP TRIGGER IF EXISTS actions_before_update_group_key ON actions;
DROP FUNCTION IF EXISTS aq_actions_before_update_group_key();

DROP TRIGGER IF EXISTS actions_before_group_key ON actions;
DROP FUNCTION IF EXISTS aq_actions_before_group_key();
DROP FUNCTION IF EXISTS aq_intern_group_key(text);
ALTER TABLE actions DROP COLUMN IF EXISTS group_key;
DROP TABLE IF EXISTS action_group_keys;
DROP SEQUENCE IF EXISTS action_group_keys_lock_id_seq;
