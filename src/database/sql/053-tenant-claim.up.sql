-- Tenants in the claim (issue 34, docs/tenants.md): the index the claim's
-- tenant turns walk, pauses of a tenant, and a rate limit per tenant.
--
-- The claimable heads by tenant, oldest first within each: the claim finds
-- the next tenant with a due head after the one it served last (one descent)
-- and takes that tenant's oldest due heads (one descent), so a claim costs
-- the same with 10 tenants holding ready heads as with 10 000
-- (aq_claim_tenant_turns). Heads only, as actions_claimable_idx: one entry per
-- group that waits, whatever the depth of its backlog. A claim with only the
-- default tenant's heads tests that the index holds no other tenant (two
-- descents, below and above 'default') and runs as before.
CREATE INDEX actions_tenant_claimable_idx ON actions (tenant, run_at, id)
  WHERE is_head AND status = 'pending' AND NOT quarantined;

-- A pause of one tenant (scope 'tenant'): nothing of it starts until resumed
-- or until `until`. The constraints of 030 are replaced by the same ones with
-- the new scope (a CHECK cannot be altered in place).
ALTER TABLE action_pauses ADD COLUMN tenant text
  CONSTRAINT action_pauses_tenant_name CHECK (tenant ~ '^[A-Za-z0-9][A-Za-z0-9._:@-]{0,127}$');
ALTER TABLE action_pauses DROP CONSTRAINT action_pauses_scope_valid;
ALTER TABLE action_pauses ADD CONSTRAINT action_pauses_scope_valid CHECK (scope IN ('queue', 'type', 'group', 'tenant'));
ALTER TABLE action_pauses DROP CONSTRAINT action_pauses_target_matches_scope;
ALTER TABLE action_pauses ADD CONSTRAINT action_pauses_target_matches_scope CHECK (
  (scope = 'queue' AND type IS NULL AND lock_id IS NULL AND tenant IS NULL)
  OR (scope = 'type' AND type IS NOT NULL AND lock_id IS NULL AND tenant IS NULL)
  OR (scope = 'group' AND type IS NULL AND lock_id IS NOT NULL AND tenant IS NULL)
  OR (scope = 'tenant' AND type IS NULL AND lock_id IS NULL AND tenant IS NOT NULL));
CREATE UNIQUE INDEX action_pauses_tenant_key ON action_pauses (tenant) WHERE scope = 'tenant';

-- A rate limit per tenant: a token bucket of `rate_per_second` starts
-- (0.001..100 000) holding at most `rate_burst` (1..100 000, default 1), as
-- the limits per type (031). Null: no limit. `tokens` and `refilled_at` are
-- the bucket, kept by the claim.
ALTER TABLE action_tenant_settings
  ADD COLUMN rate_per_second double precision,
  ADD COLUMN rate_burst integer,
  ADD COLUMN tokens double precision NOT NULL DEFAULT 0,
  ADD COLUMN refilled_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  ADD CONSTRAINT action_tenant_settings_rate_valid CHECK (
    (rate_per_second IS NULL AND rate_burst IS NULL)
    OR (rate_per_second >= 0.001 AND rate_per_second <= 100000 AND coalesce(rate_burst, 1) BETWEEN 1 AND 100000));
