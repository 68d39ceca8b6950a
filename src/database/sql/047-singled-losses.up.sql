-- 047: losses shared by everything a dying instance ran are weak evidence.
--
-- 011's rule made an action a suspect at its second loss in a row (a loss:
-- an attempt ended with its instance, uncharged). Every action in flight on
-- an instance shares its deaths, so two crashes in a row (a node pool rotated
-- twice, a noisy neighbour OOM-killed twice) made every one of them a
-- suspect: 100 actions in flight then recovered one per instance at a time,
-- the serialized drain that 011 removed (issue 32, 1c).
--
-- A loss now says how many other actions were lost with it, and an action
-- lost with at most one other is singled out by it; the rule that makes a
-- suspect of it, and its reasons, are aq_end_lost_attempts's own
-- (src/database/functions/aq_end_lost_attempts.sql, applied after the
-- numbered migrations: 048). This migration adds what the rule reads and writes.

-- Of the current losses in a row (uncharged_losses), those that singled the
-- action out; meaningless while uncharged_losses is 0 (no COMMENT: the
-- entity, src/data-model/action.entity.ts, describes it).
ALTER TABLE actions ADD COLUMN singled_losses integer NOT NULL DEFAULT 0;

-- Handler runs lost from each instance lately (its losses in the window);
-- written and pruned by aq_end_lost_attempts only, so it holds a row per
-- instance lost in the last 5 minutes.
CREATE TABLE instance_losses (
  worker_id    text PRIMARY KEY,
  lost_runs    integer NOT NULL,
  last_lost_at timestamptz NOT NULL
);

COMMENT ON TABLE instance_losses IS
  'Handler runs lost from each instance (lease owner) in the last 5 minutes: the company of its later losses (047-singled-losses.up.sql).';

-- Whoever may end lost attempts (updates actions) may count them: the grants
-- a role has to update actions, as 039 copied its grants to its new table.
DO $$
DECLARE
  r record;
BEGIN
  FOR r IN
    SELECT DISTINCT CASE WHEN g.grantee = 'PUBLIC' THEN 'PUBLIC' ELSE quote_ident(g.grantee) END AS grantee
    FROM information_schema.role_table_grants AS g
    WHERE g.table_schema = current_schema() AND g.table_name = 'actions' AND g.privilege_type = 'UPDATE'
      AND g.grantee <> (SELECT pg_get_userbyid(c.relowner) FROM pg_class AS c WHERE c.oid = 'actions'::regclass)
  LOOP
    EXECUTE format('GRANT SELECT, INSERT, UPDATE, DELETE ON instance_losses TO %s', r.grantee);
  END LOOP;
END $$;

-- Work in flight at the upgrade: its losses so far were counted by 011's
-- rule, which did not record their company; taken as singling it out, so
-- that the bound on a poison lost before the upgrade is 011's.
UPDATE actions SET singled_losses = uncharged_losses
WHERE status IN ('pending', 'running') AND uncharged_losses > 0;
