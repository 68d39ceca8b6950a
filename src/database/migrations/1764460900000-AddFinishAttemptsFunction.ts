import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Adds `aq_finish_attempts`: ends a batch of attempts and, in the same
 * transaction, hands the next head of every group it released straight to the
 * finishing worker (a lease like the claim's).
 *
 * Why a function: the group's next head is promoted by the release trigger,
 * which fires at the end of the finishing statement; a second statement is
 * needed to see it. Two statements in one function keep it to one round trip
 * and one commit, so a strictly serial group needs about one commit per action
 * instead of two (finish, then claim). Other workers are still notified and
 * skip the handed-off row (SKIP LOCKED / it is no longer pending).
 *
 * The semantics of the first statement are those of FINISH_ATTEMPTS_SQL
 * (src/queue/sql/finish-attempts.sql.ts): fenced per row by id, status
 * `running`, lease owner and attempt number. Keep the two in step.
 */
export class AddFinishAttemptsFunction1764460900000 implements MigrationInterface {
  name = 'AddFinishAttemptsFunction1764460900000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
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
        p_lease_ms      int
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
      BEGIN
        -- Lock the batch's groups first, in lock_id order. The release trigger
        -- would otherwise lock them in whatever order the UPDATE visits rows,
        -- which deadlocks against a producer inserting into several groups
        -- (the API's batch locks its groups in lock_id order too).
        PERFORM 1 FROM action_groups AS g
          WHERE g.lock_id IN (SELECT a.lock_id FROM actions AS a
                              WHERE a.id = ANY(p_ids) AND a.lock_id IS NOT NULL
                                AND a.status = 'running' AND a.lease_owner = p_worker)
          ORDER BY g.lock_id
          FOR UPDATE OF g;
        WITH input AS (
          SELECT *
          FROM unnest(p_ids, p_attempts, p_next_status, p_results, p_errors, p_delays_ms, p_outcomes)
               AS t(id, attempt, next_status, result, error, delay_ms, outcome)
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
            AND a.status = 'running'
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

        IF v_released IS NULL OR p_lease_ms <= 0 OR cardinality(p_handoff_types) = 0 THEN
          RETURN;
        END IF;

        -- The release trigger has promoted each group's next head by now. Take
        -- those that this worker can run, exactly like the claim statement.
        RETURN QUERY
        WITH picked AS MATERIALIZED (
          SELECT a.id
          FROM action_groups AS g
          JOIN actions AS a ON a.id = g.head_id
          WHERE g.lock_id = ANY(v_released)
            AND a.is_head
            AND a.status = 'pending'
            AND a.run_at <= now()
            AND a.type = ANY(p_handoff_types)
          FOR UPDATE OF a SKIP LOCKED
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
        RETURNING 'claimed'::text, a.id, a.attempts, a.lock_id, a.type, a.payload,
                  a.max_attempts, a.on_failure, a.created_at, a.idempotency_key;
      END $$;
    `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP FUNCTION IF EXISTS aq_finish_attempts(text, bigint[], int[], text[], jsonb[], text[], int[], text[], text[], int)`);
  }
}
