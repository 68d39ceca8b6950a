-- Back to 052: no tenant rate limits, no tenant pauses (they are deleted),
-- no tenant index (the claim of 052 serves heads oldest first, as before).
ALTER TABLE action_tenant_settings
  DROP CONSTRAINT action_tenant_settings_rate_valid,
  DROP COLUMN refilled_at,
  DROP COLUMN tokens,
  DROP COLUMN rate_burst,
  DROP COLUMN rate_per_second;
DELETE FROM action_pauses WHERE scope = 'tenant';
DROP INDEX action_pauses_tenant_key;
ALTER TABLE action_pauses DROP CONSTRAINT action_pauses_target_matches_scope;
ALTER TABLE action_pauses ADD CONSTRAINT action_pauses_target_matches_scope CHECK (
  (scope = 'queue' AND type IS NULL AND lock_id IS NULL)
  OR (scope = 'type' AND type IS NOT NULL AND lock_id IS NULL)
  OR (scope = 'group' AND type IS NULL AND lock_id IS NOT NULL));
ALTER TABLE action_pauses DROP CONSTRAINT action_pauses_scope_valid;
ALTER TABLE action_pauses ADD CONSTRAINT action_pauses_scope_valid CHECK (scope IN ('queue', 'type', 'group'));
ALTER TABLE action_pauses DROP COLUMN tenant;
DROP INDEX actions_tenant_claimable_idx;
