-- Back to one queue without tenants: the settings and every action's tenant
-- are dropped (all actions then share the queue as before 052).
DROP TABLE action_tenant_settings;
DROP TRIGGER actions_before_update_tenant ON actions;
ALTER TABLE actions DROP COLUMN tenant;
