-- The lease: the one statement that makes an action `running` under a worker.
-- Both ways of taking an action use it: the claim (aq_claim_actions, in
-- 005-worker-fast-path.sql) and the hand-off of a group's next head to the
-- worker whose completion released the group (aq_promote_groups, in
-- 004-group-order.sql).

-- What a worker gets for each action it takes (claim and hand-off alike).
CREATE TYPE aq_leased_action AS (
  id               bigint,
  lock_id          bigint,
  type             text,
  payload          jsonb,
  attempts         integer,
  charged_attempts integer,
  max_attempts     integer,
  on_failure       text,
  run_at           timestamptz,
  created_at       timestamptz,
  idempotency_key  text,
  quarantined      boolean,
  lease_expires_at timestamptz
);

-- Leases the given actions to p_worker for p_lease_ms (database clock) if they
-- are still pending, due and of a type the worker runs, and makes them heads
-- (a no-op for a claim: only heads are claimable; for a hand-off it is the
-- promotion, in the same row update). The attempt number grows by one: it is
-- the new fencing token. A handler's `maxAttempts` cap (p_caps[i] for
-- p_types[i], NULL for none) is written into max_attempts here, so the number
-- the API shows from the first attempt on is the number enforced.
-- attempt_started_at uses clock_timestamp(), so the trace shows real start
-- times, not the transaction's start.
CREATE FUNCTION aq_lease_actions(p_ids bigint[], p_worker text, p_lease_ms int, p_types text[], p_caps int[])
  RETURNS SETOF aq_leased_action
  -- PL/pgSQL, not SQL: its plan is cached per connection (a SQL function that
  -- cannot be inlined is planned again on every call).
  LANGUAGE plpgsql VOLATILE AS $$
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
