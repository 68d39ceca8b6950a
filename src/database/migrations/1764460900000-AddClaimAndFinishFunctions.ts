import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Adds the worker's two statements as functions:
 *
 * - `aq_claim_actions(worker, types, limit, lease_ms)`: the claim. Its reasons
 *   are documented at CLAIM_ACTIONS_SQL (src/queue/sql/claim-actions.sql.ts).
 * - `aq_finish_attempts(...)`: ends a batch of attempts and, in the same
 *   transaction, hands the next head of every group it released straight to
 *   the finishing worker, then claims more actions for the slots still free.
 *   So a busy worker needs one statement (and one commit) per batch.
 *
 * How: the function sets transaction-local settings (`aq.handoff_*`) that the
 * release trigger (aq_promote_groups) reads, so the promotion and the new lease
 * are one row update; a last statement returns the handed-off rows. One round
 * trip and one commit, so a strictly serial group needs about one commit per
 * action instead of two (finish, then claim), and no other worker is woken for
 * a head that is already taken.
 *
 * The semantics of the first statement are those of FINISH_ATTEMPTS_SQL
 * (src/queue/sql/finish-attempts.sql.ts): fenced per row by id, status
 * `running`, lease owner and attempt number. Keep the two in step.
 */
export class AddClaimAndFinishFunctions1764460900000 implements MigrationInterface {
  name = 'AddClaimAndFinishFunctions1764460900000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE FUNCTION aq_claim_actions(p_worker text, p_types text[], p_limit int, p_lease_ms int)
      RETURNS TABLE (
        id bigint, lock_id bigint, type text, payload jsonb, attempts int, max_attempts int,
        on_failure text, run_at timestamptz, created_at timestamptz, idempotency_key text, lease_expires_at timestamptz
      )
      LANGUAGE plpgsql VOLATILE AS $$
      #variable_conflict use_column
      BEGIN
        -- Why this is correct and fast: see CLAIM_ACTIONS_SQL. Heads only
        -- (is_head), SKIP LOCKED, the selection MATERIALIZED so the LIMIT runs
        -- once, lease from the database clock, served by actions_claimable_idx.
        RETURN QUERY
        WITH picked AS MATERIALIZED (
          SELECT a.id
          FROM actions AS a
          WHERE a.is_head
            AND a.status = 'pending'
            AND a.run_at <= now()
            AND a.type = ANY(p_types)
          ORDER BY a.run_at, a.id
          LIMIT p_limit
          FOR UPDATE SKIP LOCKED
        )
        UPDATE actions AS a
        SET status             = 'running',
            attempts           = a.attempts + 1,
            lease_owner        = p_worker,
            lease_expires_at   = now() + p_lease_ms * interval '1 millisecond',
            attempt_started_at = clock_timestamp(),
            started_at         = coalesce(a.started_at, clock_timestamp())
        FROM picked
        WHERE a.id = picked.id
        RETURNING a.id, a.lock_id, a.type, a.payload, a.attempts, a.max_attempts,
                  a.on_failure, a.run_at, a.created_at, a.idempotency_key, a.lease_expires_at;
      END $$;

      CREATE FUNCTION aq_finish_attempts(
        p_worker        text,
        p_ids           bigint[],
        p_attempts      int[],
        p_next_status   text[],
        p_results       jsonb[],
        p_errors        text[],
        p_delays_ms     int[],
        p_outcomes      text[],
        p_handoff_types text[],
        p_lease_ms      int,
        p_claim_limit   int
      ) RETURNS TABLE (
        kind text, id bigint, attempt int, lock_id bigint, type text, payload jsonb,
        max_attempts int, on_failure text, created_at timestamptz, idempotency_key text
      )
      LANGUAGE plpgsql VOLATILE AS $$
      #variable_conflict use_column
      DECLARE
        v_ids      bigint[];
        v_attempts int[];
        v_released bigint[];
        v_handed   int := 0;
        v_deferred bigint[];
      BEGIN
        -- Lock the groups this batch releases (a head that ends done, or failed
        -- under 'skip'), in lock_id order: the release trigger would otherwise
        -- lock them in whatever order the UPDATE visits rows, and deadlock with
        -- a producer inserting into several groups (the API's batch locks its
        -- groups in lock_id order too). SKIP LOCKED: a group that a producer
        -- holds right now (an open transaction that enqueued into it) must not
        -- stall the rest of the batch; its completion is deferred and the
        -- worker sends it again shortly.
        WITH releasing AS MATERIALIZED (
          SELECT a.id, a.lock_id
          FROM actions AS a
          JOIN unnest(p_ids, p_next_status) AS t(id, next_status) ON a.id = t.id
          WHERE a.lock_id IS NOT NULL AND a.lease_owner = p_worker
            AND (t.next_status = 'done' OR (t.next_status = 'failed' AND a.on_failure = 'skip'))
        ),
        locked AS MATERIALIZED (
          SELECT g.lock_id FROM action_groups AS g
          WHERE g.lock_id IN (SELECT r.lock_id FROM releasing AS r)
          ORDER BY g.lock_id
          FOR UPDATE SKIP LOCKED
        )
        SELECT coalesce(array_agg(r.id), '{}') INTO v_deferred
        FROM releasing AS r
        WHERE r.lock_id NOT IN (SELECT l.lock_id FROM locked AS l);
        -- Ask the release trigger (aq_promote_groups) to hand each new head to
        -- this worker in the same UPDATE that promotes it. Transaction-local,
        -- and cleared again below.
        IF cardinality(p_handoff_types) > 0 AND p_lease_ms > 0 THEN
          PERFORM set_config('aq.handoff_worker', p_worker, true),
                  set_config('aq.handoff_types', array_to_string(p_handoff_types, ','), true),
                  set_config('aq.handoff_lease_ms', p_lease_ms::text, true);
        END IF;
        WITH input AS (
          SELECT *
          FROM unnest(p_ids, p_attempts, p_next_status, p_results, p_errors, p_delays_ms, p_outcomes)
               AS t(id, attempt, next_status, result, error, delay_ms, outcome)
          WHERE t.id <> ALL(v_deferred)
        ),
        ended AS (
          UPDATE actions AS a
          SET status           = i.next_status,
              result           = CASE WHEN i.next_status = 'done' THEN i.result ELSE a.result END,
              last_error       = CASE WHEN i.outcome = 'error' THEN i.error ELSE a.last_error END,
              finished_at      = CASE WHEN i.next_status IN ('done', 'failed') THEN clock_timestamp() END,
              run_at           = CASE WHEN i.next_status = 'pending'
                                      THEN now() + i.delay_ms * interval '1 millisecond'
                                      ELSE a.run_at END,
              max_attempts     = CASE WHEN i.outcome = 'released' THEN a.max_attempts + 1 ELSE a.max_attempts END,
              lease_owner      = NULL,
              lease_expires_at = NULL
          FROM input AS i
          WHERE a.id = i.id
            -- The fence. "lease_owner = me" implies status = 'running' (CHECK
            -- actions_lease_iff_running); status is not tested here so that the
            -- planner drives the join from the batch by primary key instead of
            -- from actions_running_idx with the batch re-scanned per row.
            AND a.lease_owner = p_worker
            AND a.attempts = i.attempt
          RETURNING a.id, a.lock_id, a.holds_group, i.attempt, i.outcome, i.error, a.attempt_started_at
        ),
        traced AS (
          INSERT INTO action_attempts (action_id, lock_id, attempt, worker_id, started_at, finished_at, outcome, error)
          SELECT e.id, e.lock_id, e.attempt, p_worker, e.attempt_started_at, clock_timestamp(), e.outcome, e.error
          FROM ended AS e
          RETURNING action_id, attempt
        )
        SELECT (SELECT array_agg(t.action_id) FROM traced AS t),
               (SELECT array_agg(t.attempt) FROM traced AS t),
               (SELECT array_agg(DISTINCT e.lock_id) FROM ended AS e WHERE NOT e.holds_group AND e.lock_id IS NOT NULL)
        INTO v_ids, v_attempts, v_released;

        RETURN QUERY SELECT 'finished'::text, f.id, f.attempt, NULL::bigint, NULL::text, NULL::jsonb,
                            NULL::int, NULL::text, NULL::timestamptz, NULL::text
                     FROM unnest(v_ids, v_attempts) AS f(id, attempt);
        IF cardinality(v_deferred) > 0 THEN
          RETURN QUERY SELECT 'deferred'::text, d.id, d.attempt, NULL::bigint, NULL::text, NULL::jsonb,
                              NULL::int, NULL::text, NULL::timestamptz, NULL::text
                       FROM unnest(p_ids, p_attempts) AS d(id, attempt)
                       WHERE d.id = ANY(v_deferred);
        END IF;

        PERFORM set_config('aq.handoff_worker', '', true);

        IF v_released IS NOT NULL THEN
          -- The new heads that the release trigger handed to this worker. Primary
          -- key lookups per released group (a join on ANY(array) got a nested
          -- loop of bitmap scans from the generic plan).
          RETURN QUERY
          SELECT 'claimed'::text, a.id, a.attempts, a.lock_id, a.type, a.payload,
                 a.max_attempts, a.on_failure, a.created_at, a.idempotency_key
          FROM unnest(v_released) AS r(lock_id)
          CROSS JOIN LATERAL (SELECT g.head_id FROM action_groups AS g WHERE g.lock_id = r.lock_id) AS g
          CROSS JOIN LATERAL (SELECT * FROM actions AS x WHERE x.id = g.head_id) AS a
          WHERE a.status = 'running'
            AND a.lease_owner = p_worker;
          GET DIAGNOSTICS v_handed = ROW_COUNT;
        END IF;

        -- Fill the slots still free with an ordinary claim, in this same commit.
        -- p_claim_limit counted every attempt of the batch as ending; a deferred
        -- one still holds its slot.
        IF p_claim_limit - v_handed - cardinality(v_deferred) > 0 AND cardinality(p_handoff_types) > 0 THEN
          RETURN QUERY
          SELECT 'claimed'::text, c.id, c.attempts, c.lock_id, c.type, c.payload,
                 c.max_attempts, c.on_failure, c.created_at, c.idempotency_key
          FROM aq_claim_actions(p_worker, p_handoff_types, p_claim_limit - v_handed - cardinality(v_deferred), p_lease_ms) AS c;
        END IF;
      END $$;
    `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      DROP FUNCTION IF EXISTS aq_finish_attempts(text, bigint[], int[], text[], jsonb[], text[], int[], text[], text[], int, int);
      DROP FUNCTION IF EXISTS aq_claim_actions(text, text[], int, int);
    `);
  }
}
