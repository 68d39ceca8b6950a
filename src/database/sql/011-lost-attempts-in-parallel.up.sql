-- Issue 17: attempts lost with their instance are re-run at once and in
-- parallel, uncharged (as Sidekiq's super_fetch and BullMQ's stalled-job check
-- do); 008 quarantined every one of them and ran each alone, so a crash with
-- 32 heads in flight recovered one action at a time.
--
-- The rule (README "Guarantees and failure modes"):
-- - A loss is an attempt ended without its worker's result and without a
--   known culprit: its lease expired (the reaper), or its instance went down
--   for an unknown cause. `uncharged_losses` counts the action's losses in a
--   row; any attempt that ends normally (aq_finish_attempts, 007) resets it
--   and `quarantined`.
-- - First loss: not charged, run again at once like any other work.
-- - Second loss in a row: still not charged; the action becomes a SUSPECT
--   (`quarantined`). An instance runs at most one suspect at a time, in one
--   slot, beside its other work (src/queue/suspect-runner.service.ts).
-- - A suspect lost again is charged: 1 + its uncharged losses, capped at what
--   is left of its budget (so it fails when that is spent). It stays a suspect
--   (its next loss costs 1) until an attempt ends normally.
-- - A known culprit (the handler running synchronously when the event-loop
--   watchdog fired, a fatal stray error) is charged at once, for this attempt
--   and its uncharged losses before it (the evidence explains them), capped
--   the same way, and becomes a suspect; the others released with it are not
--   losses (unchanged from 008).
-- So an innocent action is charged only when it was lost three times in a row,
-- the third while it ran as the one suspect of its instance; an action that
-- kills its instance every time runs at most 3 times on a budget of 2.

CREATE OR REPLACE FUNCTION aq_end_lost_attempts(p_ids bigint[], p_culprit bigint, p_outcome text, p_reason text,
                                                p_delay_ms int, p_only_expired boolean)
  RETURNS TABLE (action_id bigint, attempt int, worker_id text, status text, charged int)
  LANGUAGE plpgsql VOLATILE
  SET search_path FROM CURRENT
  AS $$
#variable_conflict use_column
BEGIN
  RETURN QUERY
  WITH lost AS MATERIALIZED (
    SELECT a.id, a.attempts, a.lease_owner, a.attempt_started_at, c.charge,
           CASE WHEN a.cancel_requested_at IS NOT NULL THEN 'cancelled'
                WHEN c.charge > 0 AND a.charged_attempts + c.charge >= a.max_attempts THEN 'failed'
                ELSE 'pending' END AS next_status
    FROM actions AS a
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
        -- A suspect from its second loss in a row on.
        quarantined      = CASE WHEN p_culprit IS NULL THEN a.quarantined OR a.uncharged_losses + 1 >= 2
                                WHEN a.id = p_culprit THEN true ELSE a.quarantined END,
        uncharged_losses = CASE WHEN p_culprit IS NULL THEN (CASE WHEN l.charge > 0 THEN 0 ELSE a.uncharged_losses + 1 END)
                                WHEN a.id = p_culprit THEN 0 ELSE a.uncharged_losses END,
        lease_owner      = NULL,
        lease_expires_at = NULL
    FROM lost AS l
    WHERE a.id = l.id
    RETURNING a.id, a.lock_id, l.attempts, l.lease_owner, l.attempt_started_at, a.status, l.charge, a.uncharged_losses, a.quarantined
  ),
  traced AS (
    INSERT INTO action_attempts (action_id, lock_id, attempt, worker_id, started_at, finished_at, outcome, error)
    SELECT e.id, e.lock_id, e.attempts, e.lease_owner, e.attempt_started_at, clock_timestamp(),
           CASE WHEN e.id = p_culprit THEN 'error' ELSE p_outcome END,
           CASE WHEN p_culprit IS NULL OR e.id = p_culprit THEN p_reason
                ELSE 'released: ' || p_reason END
             || CASE WHEN p_culprit IS NOT NULL THEN ''
                     WHEN e.charge > 0 THEN ' (charged: lost again as a suspect)'
                     WHEN e.quarantined THEN ' (not charged; lost ' || e.uncharged_losses || ' times in a row: now a suspect)'
                     ELSE ' (not charged; run again at once)' END
    FROM ended AS e
    RETURNING action_id
  )
  SELECT e.id, e.attempts, e.lease_owner, e.status, e.charge FROM ended AS e;
  IF NOT FOUND THEN
    RETURN;
  END IF;
  -- An attempt that ended for good released its group, and the release trigger
  -- (at the end of the statement above) made the next action head: it too
  -- waits p_delay_ms, for the fenced instance to be gone.
  IF p_delay_ms > 0 THEN
    UPDATE actions AS a
    SET run_at = greatest(a.run_at, now() + p_delay_ms * interval '1 millisecond')
    FROM action_groups AS g
    WHERE g.lock_id IN (SELECT x.lock_id FROM actions AS x WHERE x.id = ANY(p_ids) AND NOT x.holds_group AND x.lock_id IS NOT NULL)
      AND a.id = g.head_id AND a.status = 'pending';
  END IF;
  PERFORM aq_wake_workers();
END $$;

-- Work in flight at the upgrade: 008 quarantined a pending action at its first
-- loss (uncharged_losses 1); by this rule it is not a suspect yet. (A
-- quarantined action with uncharged_losses 0 was charged as a culprit: it
-- stays a suspect. A running one finishes its attempt as it is.)
UPDATE actions SET quarantined = false
WHERE status = 'pending' AND quarantined AND uncharged_losses = 1;
