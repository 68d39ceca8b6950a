-- 031's lease of selected heads, clearing the chunk mark of an earlier attempt.
CREATE OR REPLACE FUNCTION aq_lease_selected(p_ids bigint[], p_worker text, p_lease_ms integer, p_types text[], p_caps integer[])
 RETURNS SETOF aq_leased_action
 LANGUAGE plpgsql
 SET search_path FROM CURRENT
AS $function$
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
      started_at         = coalesce(a.started_at, clock_timestamp()),
      chunk_of           = NULL
  FROM unnest(p_types, p_caps) AS t(type, cap)
  WHERE a.id = ANY(p_ids)
    AND a.type = t.type
    AND a.status = 'pending'
    AND a.run_at <= now()
  RETURNING a.id, a.lock_id, a.type, a.payload, a.attempts, a.charged_attempts, a.max_attempts,
            a.on_failure, a.run_at, a.created_at, a.idempotency_key, a.quarantined, a.lease_expires_at;
END $function$;
