-- Tenants (issue 34, docs/tenants.md): every action belongs to one tenant,
-- a group to the tenant of its work, and each tenant may have settings.
--
-- actions.tenant: NOT NULL DEFAULT 'default' rather than a nullable column.
-- A constant default is stored once in the catalogue (PostgreSQL 11+): the
-- ADD COLUMN rewrites no row, existing actions read as 'default', and every
-- producer that names no tenant (an INSERT of today, a SQL producer's
-- statement unchanged) gets the default tenant without a NULL meaning
-- "default" in every query that groups or compares by tenant. The CHECK scans
-- the table once, under the ACCESS EXCLUSIVE lock this migration holds anyway
-- (as 049's did).
--
-- The name: 1..128 characters of ASCII letters, digits and . _ : @ -,
-- starting with a letter or a digit, so that it is safe unquoted in a URL
-- path segment (/tenants/:tenant/settings), a metric label and a log line,
-- and never "." or "..". A bad name is refused with SQLSTATE 23514,
-- constraint actions_tenant_name.
ALTER TABLE actions
  ADD COLUMN tenant text NOT NULL DEFAULT 'default'
  CONSTRAINT actions_tenant_name CHECK (tenant ~ '^[A-Za-z0-9][A-Za-z0-9._:@-]{0,127}$');

-- An action's tenant never changes (aq_actions_before_update refuses it,
-- SQLSTATE 23514): a group's single tenant is checked at insert only. A trigger
-- of its own, on UPDATE OF tenant, so that no other update pays for it (as
-- 017's group_key guard).
CREATE TRIGGER actions_before_update_tenant BEFORE UPDATE OF tenant ON actions
  FOR EACH ROW WHEN (OLD.tenant IS DISTINCT FROM NEW.tenant)
  EXECUTE FUNCTION aq_actions_before_update();

-- Per-tenant settings; a tenant without a row has weight 1 and no cap.
-- weight: its share of the claim relative to the other tenants with ready
-- heads (> 0, at most 1 000; a real number, so 0.5 is half a share; NaN and
-- infinity are refused by the upper bound). max_running: the most of its
-- actions running at once (>= 1), null for no cap.
CREATE TABLE action_tenant_settings (
  tenant      text PRIMARY KEY
              CONSTRAINT action_tenant_settings_tenant_name CHECK (tenant ~ '^[A-Za-z0-9][A-Za-z0-9._:@-]{0,127}$'),
  weight      double precision NOT NULL DEFAULT 1
              CONSTRAINT action_tenant_settings_weight_range CHECK (weight > 0 AND weight <= 1000),
  max_running integer
              CONSTRAINT action_tenant_settings_max_running_positive CHECK (max_running IS NULL OR max_running >= 1),
  updated_at  timestamptz NOT NULL DEFAULT clock_timestamp()
);
