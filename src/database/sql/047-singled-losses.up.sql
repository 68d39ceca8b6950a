-- 047: losses shared by everything a dying instance ran are weak evidence.
--
-- 011's rule made an action a suspect at its second loss in a row (a loss:
-- an attempt ended with its instance, uncharged). Every action in flight on
-- an instance shares its deaths, so two crashes in a row (a node pool rotated
-- twice, a noisy neighbour OOM-killed twice) made every one of them a
-- suspect: 100 actions in flight then recovered one per instance at a time,
-- the serialized drain that 011 removed (issue 32, 1c).
--
-- A loss now says how many other actions were lost with it: the other
-- attempts of the same instance (lease owner; a worker id is unique per
-- process start) that end with it (the same statement: a watchdog's release
-- of its instance, a reaper round), whose leases have expired too (a round
-- that skipped some, locked or past its batch, still counts them), or that
-- were lost from that instance in the last 5 minutes (`instance_losses`). The last is for a dead instance's leases that expire
-- later than the rest, reaped by a later round: those it claimed after its
-- last heartbeat (up to LEASE_MS / 3 later), or whose renewal its last beat
-- missed. A window too long only makes losses look shared (a suspect one
-- loss later, within the bound below); too short, a few actions look singled
-- out (suspects one loss sooner, as with 011). The rows of an ordered chunk
-- are one handler run and count once. A loss with at most one
-- other is one that SINGLES the action out: the instance lost it alone, or
-- beside a single neighbour (a poison and the one innocent it killed with
-- it cannot be told apart; both are singled out). `singled_losses` counts
-- those among the current run of losses in a row (`uncharged_losses`); it is
-- read only while that run lasts (a run starts again at 0: an attempt that
-- ended normally, a charge, a culprit).
--
-- The rule (aq_end_lost_attempts, p_culprit NULL):
-- - 2nd loss in a row: a suspect if either loss singled it out;
-- - 3rd loss in a row: a suspect regardless;
-- - a suspect's loss is charged as before: 1 + its uncharged losses, capped
--   at what is left of its budget.
-- So innocents lost together in two crashes run again in parallel; a third
-- crash in a row serializes them (each instance runs one suspect at a time),
-- as 011 did at the second. A poison that kills its instance alone is a
-- suspect after 2 losses (at most max(budget, 3) executions, as with 011);
-- one that kills a busy instance twice is one after 3 and fails at its next
-- loss: at most max(budget, 4) executions, one more than 011 only for a
-- budget of 1 or 2 (docs/guarantees.md).
--
-- Replaces aq_end_lost_attempts (042); its callers are unchanged.

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

CREATE OR REPLACE FUNCTION aq_end_lost_attempts(p_ids bigint[], p_culprit bigint, p_outcome text, p_reason text, p_delay_ms integer, p_only_expired boolean)
 RETURNS TABLE(action_id bigint, attempt integer, worker_id text, status text, charged integer)
 LANGUAGE plpgsql
 SET search_path FROM CURRENT
AS $function$
#variable_conflict use_column
BEGIN
  -- Most reaper rounds find nothing: skip the scan of the running rows below.
  IF cardinality(p_ids) = 0 THEN
    RETURN;
  END IF;
  RETURN QUERY
  WITH lost_with AS MATERIALIZED (
    -- Per lease owner of the rows to end, the handler runs lost with them,
    -- their own included: its running attempts ended by this statement or
    -- expired (actions_running_idx: running rows are few; the rows of an
    -- ordered chunk, 042, are one run), and those it lost in the window.
    SELECT r.lease_owner, count(DISTINCT coalesce(r.chunk_of, r.id))::int + coalesce(min(i.lost_runs), 0) AS n
    FROM actions AS r
    LEFT JOIN instance_losses AS i ON i.worker_id = r.lease_owner AND i.last_lost_at > now() - interval '5 minutes'
    WHERE r.status = 'running'
      AND r.lease_owner IN (SELECT x.lease_owner FROM actions AS x WHERE x.id = ANY(p_ids) AND x.status = 'running')
      AND (r.lease_expires_at < now() OR (NOT p_only_expired AND r.id = ANY(p_ids)))
    GROUP BY r.lease_owner
  ),
  lost AS MATERIALIZED (
    SELECT a.id, a.attempts, a.lease_owner, a.attempt_started_at, c.charge,
           CASE WHEN a.cancel_requested_at IS NOT NULL THEN 'cancelled'
                WHEN c.charge > 0 AND a.charged_attempts + c.charge >= a.max_attempts THEN 'failed'
                ELSE 'pending' END AS next_status,
           -- The other handler runs lost with it (its own chunk's rows are its run).
           greatest(coalesce(w.n, 1) - 1, 0) AS company,
           -- The singling losses of the run this loss continues (none when it starts one).
           CASE WHEN a.uncharged_losses = 0 THEN 0 ELSE a.singled_losses END AS singled_before
    FROM actions AS a
    LEFT JOIN lost_with AS w ON w.lease_owner = a.lease_owner
    CROSS JOIN LATERAL (
      SELECT CASE WHEN p_culprit IS NULL
                  THEN least(aq_loss_charge(a.quarantined, a.uncharged_losses), greatest(a.max_attempts - a.charged_attempts, 1))
                  WHEN a.id = p_culprit
                  THEN least(1 + a.uncharged_losses, greatest(a.max_attempts - a.charged_attempts, 1))
                  ELSE 0 END AS charge
    ) AS c
    WHERE a.id = ANY(p_ids) AND a.status = 'running' AND (NOT p_only_expired OR a.lease_expires_at < now())
    FOR UPDATE OF a
  ),
  ended AS (
    UPDATE actions AS a
    SET status           = l.next_status,
        finished_at      = CASE WHEN l.next_status = 'pending' THEN NULL ELSE clock_timestamp() END,
        run_at           = CASE WHEN l.next_status = 'pending' THEN now() + p_delay_ms * interval '1 millisecond' ELSE a.run_at END,
        charged_attempts = a.charged_attempts + l.charge,
        last_error       = CASE WHEN p_culprit IS NULL OR a.id = p_culprit THEN p_reason ELSE a.last_error END,
        -- A suspect from its second loss in a row on when one of them singled
        -- it out (lost with at most one other), from its third regardless.
        quarantined      = CASE WHEN p_culprit IS NULL
                                THEN a.quarantined
                                     OR a.uncharged_losses + 1 >= 3
                                     OR (a.uncharged_losses + 1 >= 2 AND l.singled_before + (l.company <= 1)::int >= 1)
                                WHEN a.id = p_culprit THEN true ELSE a.quarantined END,
        uncharged_losses = CASE WHEN p_culprit IS NULL THEN (CASE WHEN l.charge > 0 THEN 0 ELSE a.uncharged_losses + 1 END)
                                WHEN a.id = p_culprit THEN 0 ELSE a.uncharged_losses END,
        singled_losses   = CASE WHEN p_culprit IS NULL THEN (CASE WHEN l.charge > 0 THEN 0 ELSE l.singled_before + (l.company <= 1)::int END)
                                WHEN a.id = p_culprit THEN 0 ELSE a.singled_losses END,
        lease_owner      = NULL,
        lease_expires_at = NULL
    FROM lost AS l
    WHERE a.id = l.id
    RETURNING a.id, a.lock_id, l.attempts, l.lease_owner, l.attempt_started_at, a.status, l.charge, a.uncharged_losses, a.quarantined, a.chunk_of,
              l.company
  ),
  traced AS (
    INSERT INTO action_attempts (action_id, lock_id, attempt, worker_id, started_at, finished_at, outcome, error, chunk_of)
    SELECT e.id, e.lock_id, e.attempts, e.lease_owner, e.attempt_started_at, clock_timestamp(),
           CASE WHEN e.id = p_culprit THEN 'error' ELSE p_outcome END,
           CASE WHEN p_culprit IS NULL OR e.id = p_culprit THEN p_reason
                ELSE 'released: ' || p_reason END
             || CASE WHEN p_culprit IS NOT NULL THEN ''
                     WHEN e.charge > 0 THEN ' (charged: lost again as a suspect, ' || t.company || ')'
                     WHEN e.quarantined THEN ' (not charged; lost ' || e.uncharged_losses || ' times in a row, this time ' || t.company || ': now a suspect)'
                     ELSE ' (not charged; lost ' || t.company || '; run again at once)' END,
           e.chunk_of
    FROM ended AS e
    CROSS JOIN LATERAL (
      SELECT CASE e.company WHEN 0 THEN 'alone' WHEN 1 THEN 'with 1 other' ELSE 'with ' || e.company || ' others' END AS company
    ) AS t
    RETURNING action_id
  ),
  counted AS (
    -- The runs this statement lost, per instance, for its later losses.
    INSERT INTO instance_losses AS i (worker_id, lost_runs, last_lost_at)
    SELECT e.lease_owner, count(DISTINCT coalesce(e.chunk_of, e.id))::int, now()
    FROM ended AS e
    WHERE p_culprit IS NULL AND e.lease_owner IS NOT NULL
    GROUP BY e.lease_owner
    ON CONFLICT (worker_id) DO UPDATE
      SET lost_runs    = CASE WHEN i.last_lost_at > now() - interval '5 minutes' THEN i.lost_runs ELSE 0 END + excluded.lost_runs,
          last_lost_at = now()
    RETURNING 1
  )
  SELECT e.id, e.attempts, e.lease_owner, e.status, e.charge FROM ended AS e;
  IF NOT FOUND THEN
    RETURN;
  END IF;
  IF p_culprit IS NULL THEN
    DELETE FROM instance_losses AS i WHERE i.last_lost_at < now() - interval '5 minutes';
  END IF;
  -- An attempt that ended for good released its group, and the release trigger
  -- (at the end of the statement above) made the next action head: it too
  -- waits p_delay_ms, for the fenced instance to be gone.
  IF p_delay_ms > 0 THEN
    UPDATE actions AS a
    SET run_at = greatest(a.run_at, now() + p_delay_ms * interval '1 millisecond')
    -- The newest head record of each released group (039), then the heads by
    -- primary key (as in aq_finish_attempts: never a walk of a status index).
    WHERE a.id = ANY(ARRAY(
            SELECT g.head_id
            FROM (SELECT DISTINCT x.lock_id FROM actions AS x WHERE x.id = ANY(p_ids) AND NOT x.holds_group AND x.lock_id IS NOT NULL) AS r
            CROSS JOIN LATERAL (SELECT h.head_id FROM action_group_heads AS h WHERE h.lock_id = r.lock_id ORDER BY h.version DESC LIMIT 1) AS g))
      AND a.status = 'pending';
  END IF;
  PERFORM aq_wake_workers();
END $function$
;
