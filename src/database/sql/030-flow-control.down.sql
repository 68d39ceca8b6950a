-- Back to the claim and lease without flow control (006 and 003, pinned by
-- 020), and no pauses. Trace rows with the `backed_off` outcome become
-- `released`, which is what they were to the queue (an uncharged release).
CREATE OR REPLACE FUNCTION aq_claim_actions(p_worker text, p_types text[], p_caps int[], p_limit int, p_lease_ms int,
                                            p_quarantined boolean DEFAULT false)
  RETURNS SETOF aq_leased_action
  LANGUAGE plpgsql VOLATILE
  SET plan_cache_mode = force_generic_plan
  SET search_path FROM CURRENT
  AS $$
BEGIN
  IF p_quarantined THEN
    RETURN QUERY SELECT * FROM aq_lease_actions(ARRAY(
      SELECT a.id FROM actions AS a
      WHERE a.is_head AND a.status = 'pending' AND a.quarantined AND a.run_at <= now() AND a.type = ANY(p_types)
      ORDER BY a.run_at, a.id
      LIMIT 1
      FOR UPDATE SKIP LOCKED
    ), p_worker, p_lease_ms, p_types, p_caps);
    RETURN;
  END IF;
  RETURN QUERY SELECT * FROM aq_lease_actions(ARRAY(
    SELECT a.id FROM actions AS a
    WHERE a.is_head AND a.status = 'pending' AND NOT a.quarantined AND a.run_at <= now() AND a.type = ANY(p_types)
    ORDER BY a.run_at, a.id
    LIMIT p_limit
    FOR UPDATE SKIP LOCKED
  ), p_worker, p_lease_ms, p_types, p_caps);
END $$;

CREATE OR REPLACE FUNCTION aq_lease_actions(p_ids bigint[], p_worker text, p_lease_ms int, p_types text[], p_caps int[])
  RETURNS SETOF aq_leased_action
  LANGUAGE plpgsql VOLATILE
  SET search_path FROM CURRENT
  AS $$
BEGIN
  RETURN QUERY
  UPDATE actions AS a
  SET is_head            = true,
      status             = 'running',
      attempts           = a.attempts + 1,
      max_attempts       = least(a.max_attempts, coalesce(t.cap, a.max_attempts)),
      lease_owner        = p_worker,
      lease_expires_at   = now() + p_lease_ms * interval '1 millisecond',
      attempt_started_at = clock_timestamp(),
      started_at         = coalesce(a.started_at, clock_timestamp())
  FROM unnest(p_types, p_caps) AS t(type, cap)
  WHERE a.id = ANY(p_ids)
    AND a.type = t.type
    AND a.status = 'pending'
    AND a.run_at <= now()
  RETURNING a.id, a.lock_id, a.type, a.payload, a.attempts, a.charged_attempts, a.max_attempts,
            a.on_failure, a.run_at, a.created_at, a.idempotency_key, a.quarantined, a.lease_expires_at;
END $$;

DROP TRIGGER IF EXISTS action_pauses_after_change_wake ON action_pauses;
DROP FUNCTION IF EXISTS aq_action_pauses_after_change_wake();
DROP FUNCTION IF EXISTS aq_resume_group_key(text);
DROP FUNCTION IF EXISTS aq_pause_group_key(text, text);
DROP FUNCTION IF EXISTS aq_resume_group(bigint);
DROP FUNCTION IF EXISTS aq_pause_group(bigint, text);
DROP FUNCTION IF EXISTS aq_resume_type(text);
DROP FUNCTION IF EXISTS aq_pause_type(text, text, bigint);
DROP FUNCTION IF EXISTS aq_resume_queue();
DROP FUNCTION IF EXISTS aq_pause_queue(text);
DROP FUNCTION IF EXISTS aq_resume(text, text, bigint);
DROP FUNCTION IF EXISTS aq_pause(text, text, bigint, text, bigint);
DROP FUNCTION IF EXISTS aq_flow_claimable_types(text[]);
DROP TABLE IF EXISTS action_pauses;

UPDATE action_attempts SET outcome = 'released' WHERE outcome = 'backed_off';
ALTER TABLE action_attempts DROP CONSTRAINT action_attempts_outcome_valid;
ALTER TABLE action_attempts ADD CONSTRAINT action_attempts_outcome_valid
  CHECK (outcome IN ('done', 'error', 'timeout', 'cancelled', 'lease_expired', 'released'));
