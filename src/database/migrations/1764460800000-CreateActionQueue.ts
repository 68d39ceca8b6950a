import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Creates the queue: `actions`, the append-only `action_attempts` trace, the
 * `action_groups` lock rows, and the triggers that keep group order (G3) and
 * commit order (G4) true for every writer, including plain SQL producers (G5).
 *
 * Invariants kept by the triggers below (see ../shared/DESIGN.md):
 * - A row "holds its group" while it is pending, running, or failed under the
 *   `block` policy (`holds_group`). Terminal rows never hold it again.
 * - In each group the holding row with the smallest id is the head (`is_head`),
 *   and it is the only row of the group that may be claimed. Rows without a
 *   lock id are always heads.
 * - `action_groups.head_id` mirrors the head. Every change of it is a write to
 *   the group row, so a REPEATABLE READ producer that read a stale head gets a
 *   serialization error instead of creating a second head. Releasing a group
 *   (promotion) must run in READ COMMITTED and says so if it does not.
 * - Ids are taken under the group lock, so within a group id order is commit
 *   order.
 *
 * Changes here must be reflected in README.md ("How it works") and in
 * src/queue/sql/*.sql.ts, which rely on the column and index names.
 */
export class CreateActionQueue1764460800000 implements MigrationInterface {
  name = 'CreateActionQueue1764460800000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE SEQUENCE actions_id_seq AS bigint;

      CREATE TABLE actions (
        -- Assigned by aq_actions_before_insert from actions_id_seq under the
        -- group lock (G4); any value a client sends is replaced. No column
        -- default: it would draw a second, wasted sequence value per row.
        id                 bigint      NOT NULL,
        lock_id            bigint,
        type               text        NOT NULL,
        payload            jsonb       NOT NULL DEFAULT '{}'::jsonb,
        status             text        NOT NULL DEFAULT 'pending',
        -- Kept by triggers; clients never set these two.
        is_head            boolean     NOT NULL DEFAULT false,
        holds_group        boolean     NOT NULL DEFAULT true,
        attempts           integer     NOT NULL DEFAULT 0,
        max_attempts       integer     NOT NULL DEFAULT 5,
        on_failure         text        NOT NULL DEFAULT 'block',
        run_at             timestamptz NOT NULL DEFAULT now(),
        created_at         timestamptz NOT NULL DEFAULT now(),
        started_at         timestamptz,
        finished_at        timestamptz,
        result             jsonb,
        last_error         text,
        idempotency_key    text,
        retry_of           bigint,
        -- The lease of the current attempt: owner, expiry (database clock) and
        -- start. The attempt number (attempts) is the fencing token.
        lease_owner        text,
        lease_expires_at   timestamptz,
        attempt_started_at timestamptz,
        CONSTRAINT actions_pkey PRIMARY KEY (id),
        CONSTRAINT actions_status_valid CHECK (status IN ('pending', 'running', 'done', 'failed', 'cancelled')),
        CONSTRAINT actions_on_failure_valid CHECK (on_failure IN ('block', 'skip')),
        CONSTRAINT actions_type_length CHECK (char_length(type) BETWEEN 1 AND 200),
        CONSTRAINT actions_payload_is_object CHECK (jsonb_typeof(payload) = 'object'),
        CONSTRAINT actions_max_attempts_positive CHECK (max_attempts >= 1),
        CONSTRAINT actions_attempts_in_range CHECK (attempts >= 0),
        CONSTRAINT actions_idempotency_key_length CHECK (char_length(idempotency_key) BETWEEN 1 AND 200),
        -- JavaScript dates (and the API) cover 1970..9999 here; 'infinity' would
        -- make the action unreadable through the API.
        CONSTRAINT actions_run_at_in_range CHECK (run_at >= '1970-01-01' AND run_at < '10000-01-01'),
        -- A lease exists exactly while the action runs: fenced statements may
        -- test "lease_owner = me" alone.
        CONSTRAINT actions_lease_iff_running CHECK (
          (status = 'running') = (lease_owner IS NOT NULL AND lease_expires_at IS NOT NULL)
        )
      );
      ALTER SEQUENCE actions_id_seq OWNED BY actions.id;

      -- The claim index: exactly the claimable rows, in the claim's ORDER BY
      -- order. Its size is the number of claimable heads, not the backlog, so a
      -- group with 100 000 pending actions adds one entry (DESIGN.md, trap 5).
      CREATE INDEX actions_claimable_idx ON actions (run_at, id)
        WHERE is_head AND status = 'pending';

      -- Finds the next head of a group on promotion.
      CREATE INDEX actions_group_holding_idx ON actions (lock_id, id)
        WHERE holds_group AND lock_id IS NOT NULL;

      -- The reaper's scan of running rows (few: at most the total concurrency).
      -- lease_expires_at is deliberately not indexed, so a heartbeat, which
      -- changes only that column, can be a HOT update.
      CREATE INDEX actions_running_idx ON actions (id) WHERE status = 'running';

      -- Listing, stats and retention. Every status change writes a new row
      -- version into every index whose predicate it matches, so these are
      -- partial: a version lands in at most one status index, and the group
      -- listing index takes only finished rows (holding rows are found through
      -- actions_group_holding_idx). Listing \`done\` walks the primary key.
      CREATE INDEX actions_pending_idx ON actions (id) WHERE status = 'pending';
      CREATE INDEX actions_failed_idx ON actions (id) WHERE status = 'failed';
      CREATE INDEX actions_cancelled_idx ON actions (id) WHERE status = 'cancelled';
      CREATE INDEX actions_group_finished_idx ON actions (lock_id, id) WHERE lock_id IS NOT NULL AND NOT holds_group;
      CREATE INDEX actions_finished_at_idx ON actions (finished_at) WHERE finished_at IS NOT NULL AND NOT holds_group;
      CREATE UNIQUE INDEX actions_idempotency_key_uq ON actions (idempotency_key)
        WHERE idempotency_key IS NOT NULL;
      -- A failed 'skip' action is re-enqueued at most once (POST /actions/:id/retry).
      CREATE UNIQUE INDEX actions_retry_of_uq ON actions (retry_of) WHERE retry_of IS NOT NULL;

      -- One row per group: the lock every group change takes, and the head.
      CREATE TABLE action_groups (
        lock_id    bigint      NOT NULL,
        head_id    bigint,
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT action_groups_pkey PRIMARY KEY (lock_id)
      );

      -- Append-only: one row per finished execution attempt, written in the
      -- same statement that ends the attempt. Kept apart from actions so the
      -- history never bloats the claim index.
      CREATE TABLE action_attempts (
        -- Insertion order, for reading the log; not indexed (the key is below).
        id          bigint GENERATED ALWAYS AS IDENTITY,
        action_id   bigint      NOT NULL,
        lock_id     bigint,
        attempt     integer     NOT NULL,
        worker_id   text        NOT NULL,
        started_at  timestamptz NOT NULL,
        finished_at timestamptz NOT NULL,
        outcome     text        NOT NULL,
        error       text,
        -- One row per attempt: attempt numbers are the fencing tokens, so a
        -- second row for one attempt would mean two holders (G2).
        CONSTRAINT action_attempts_pkey PRIMARY KEY (action_id, attempt),
        CONSTRAINT action_attempts_action_fk FOREIGN KEY (action_id) REFERENCES actions (id) ON DELETE CASCADE,
        CONSTRAINT action_attempts_outcome_valid CHECK (outcome IN ('done', 'error', 'lease_expired', 'released'))
      );

      -- Hot tables: vacuum early so dead tuples of status changes stay few.
      ALTER TABLE actions SET (autovacuum_vacuum_scale_factor = 0.02, autovacuum_analyze_scale_factor = 0.02, fillfactor = 80);
      ALTER TABLE action_groups SET (autovacuum_vacuum_scale_factor = 0.02, fillfactor = 70);
    `);

    await queryRunner.query(`
      CREATE FUNCTION aq_holds_group(status text, on_failure text) RETURNS boolean
        LANGUAGE sql IMMUTABLE PARALLEL SAFE
        AS $$ SELECT status IN ('pending', 'running') OR (status = 'failed' AND on_failure = 'block') $$;

      -- Locks the group row, creating it on first use, and returns its head id.
      -- A row lock, not an advisory lock: a batch touching 20 000 groups would
      -- exhaust the shared lock table with advisory locks.
      CREATE FUNCTION aq_lock_group(p_lock_id bigint) RETURNS bigint
        LANGUAGE plpgsql VOLATILE AS $$
      DECLARE
        v_head bigint;
      BEGIN
        SELECT head_id INTO v_head FROM action_groups WHERE lock_id = p_lock_id FOR UPDATE;
        IF NOT FOUND THEN
          INSERT INTO action_groups (lock_id) VALUES (p_lock_id) ON CONFLICT DO NOTHING;
          SELECT head_id INTO v_head FROM action_groups WHERE lock_id = p_lock_id FOR UPDATE;
        END IF;
        RETURN v_head;
      END $$;

      -- Makes the smallest holding action of each given group its head (or
      -- hands it to the finishing worker, see aq_finish_attempts), set-based:
      -- a finishing batch of N heads costs a few statements, not N. Called by
      -- the release triggers after heads released their groups. Requires READ
      -- COMMITTED: each statement here takes a fresh snapshot after the group
      -- locks, so it sees every enqueue that committed before it got them.
      --
      -- p_after[i] is the id of the head that released group p_groups[i]: the
      -- next head has a larger id (the head is the group's smallest holding id),
      -- so the index scan starts right after it instead of walking the dead
      -- index entries that a long-lived deep group leaves behind.
      CREATE FUNCTION aq_promote_groups(p_groups bigint[], p_after bigint[]) RETURNS void
        LANGUAGE plpgsql VOLATILE AS $$
      DECLARE
        v_worker text := coalesce(current_setting('aq.handoff_worker', true), '');
        v_types  text[];
        v_lease  int;
        v_todo   bigint[] := p_groups;
        v_locks  bigint[];
        v_next   bigint[];
        v_taken  bigint[];
        v_plain  bigint[];
      BEGIN
        IF current_setting('transaction_isolation') <> 'read committed' THEN
          RAISE EXCEPTION 'actions: releasing groups (lock_id %) must run in READ COMMITTED, not %',
            p_groups, current_setting('transaction_isolation')
            USING ERRCODE = '55000';
        END IF;
        -- In lock_id order, like every other writer (a no-op for locks held).
        PERFORM 1 FROM action_groups WHERE lock_id = ANY(p_groups) ORDER BY lock_id FOR UPDATE;
        IF v_worker <> '' THEN
          v_types := string_to_array(current_setting('aq.handoff_types'), ',');
          v_lease := current_setting('aq.handoff_lease_ms')::int;
        END IF;
        WHILE cardinality(v_todo) > 0 LOOP
          -- The next holding action of each group. ORDER BY lock_id, id matches
          -- actions_group_holding_idx exactly; with ORDER BY id alone the planner
          -- may walk the primary key through every finished row of a deep group.
          SELECT array_agg(g.lock_id), array_agg(x.id) INTO v_locks, v_next
          FROM unnest(p_groups, p_after) AS g(lock_id, after_id)
          CROSS JOIN LATERAL (
            SELECT a.id FROM actions AS a
            WHERE a.lock_id = g.lock_id AND a.holds_group AND a.lock_id IS NOT NULL AND a.id > g.after_id
            ORDER BY a.lock_id, a.id LIMIT 1
          ) AS x
          WHERE g.lock_id = ANY(v_todo);
          v_locks := coalesce(v_locks, '{}');
          v_next := coalesce(v_next, '{}');
          -- Groups left empty. Every change of a group's head writes its row,
          -- so a REPEATABLE READ producer holding a stale view fails instead.
          IF cardinality(v_locks) < cardinality(v_todo) THEN
            UPDATE action_groups SET head_id = NULL
            WHERE lock_id = ANY(v_todo) AND lock_id <> ALL(v_locks);
          END IF;
          EXIT WHEN cardinality(v_next) = 0;
          v_taken := '{}';
          IF v_worker <> '' THEN
            -- Hand-off: the finishing worker takes the new heads it can run at
            -- once, leased exactly as the claim statement does.
            WITH t AS (
              UPDATE actions
              SET is_head            = true,
                  status             = 'running',
                  attempts           = attempts + 1,
                  lease_owner        = v_worker,
                  lease_expires_at   = now() + v_lease * interval '1 millisecond',
                  attempt_started_at = clock_timestamp(),
                  started_at         = coalesce(started_at, clock_timestamp())
              WHERE id = ANY(v_next) AND status = 'pending' AND run_at <= now() AND type = ANY(v_types)
              RETURNING id
            )
            SELECT coalesce(array_agg(t.id), '{}') INTO v_taken FROM t;
          END IF;
          -- "AND holds_group" is re-checked on the newest row version: a
          -- concurrent cancel of a candidate (which does not take the group
          -- lock, since it was not the head) makes the update miss it, and the
          -- loop picks that group's next action instead of crowning a cancelled row.
          v_plain := '{}';
          IF cardinality(v_taken) < cardinality(v_next) THEN
            WITH t AS (
              UPDATE actions SET is_head = true
              WHERE id = ANY(v_next) AND id <> ALL(v_taken) AND holds_group
              RETURNING id
            )
            SELECT coalesce(array_agg(t.id), '{}') INTO v_plain FROM t;
          END IF;
          IF cardinality(v_plain) > 0 THEN
            PERFORM pg_notify('actions_ready', '');
          END IF;
          UPDATE action_groups AS g SET head_id = n.id
          FROM unnest(v_locks, v_next) AS n(lock_id, id)
          WHERE g.lock_id = n.lock_id AND (n.id = ANY(v_taken) OR n.id = ANY(v_plain));
          EXIT WHEN cardinality(v_taken) + cardinality(v_plain) = cardinality(v_next);
          v_todo := ARRAY(
            SELECT n.lock_id FROM unnest(v_locks, v_next) AS n(lock_id, id)
            WHERE n.id <> ALL(v_taken) AND n.id <> ALL(v_plain)
          );
        END LOOP;
      END $$;

      -- Release triggers (statement level, with transition tables): the
      -- groups whose head reached a state that releases the group (done,
      -- cancelled, failed under 'skip') or was deleted get their next head.
      CREATE FUNCTION aq_actions_after_update_release() RETURNS trigger
        LANGUAGE plpgsql AS $$
      DECLARE
        v_groups bigint[];
        v_after  bigint[];
      BEGIN
        -- One head per group, so each released group appears once.
        SELECT array_agg(o.lock_id ORDER BY o.lock_id), array_agg(o.id ORDER BY o.lock_id) INTO v_groups, v_after
        FROM old_rows AS o JOIN new_rows AS n ON n.id = o.id
        WHERE o.is_head AND o.holds_group AND NOT n.holds_group AND o.lock_id IS NOT NULL;
        IF v_groups IS NOT NULL THEN
          PERFORM aq_promote_groups(v_groups, v_after);
        END IF;
        RETURN NULL;
      END $$;

      CREATE FUNCTION aq_actions_after_delete_release() RETURNS trigger
        LANGUAGE plpgsql AS $$
      DECLARE
        v_groups bigint[];
        v_after  bigint[];
      BEGIN
        SELECT array_agg(o.lock_id ORDER BY o.lock_id), array_agg(o.id ORDER BY o.lock_id) INTO v_groups, v_after
        FROM old_rows AS o
        WHERE o.is_head AND o.holds_group AND o.lock_id IS NOT NULL;
        IF v_groups IS NOT NULL THEN
          PERFORM aq_promote_groups(v_groups, v_after);
        END IF;
        RETURN NULL;
      END $$;

      CREATE FUNCTION aq_actions_before_insert() RETURNS trigger
        LANGUAGE plpgsql AS $$
      DECLARE
        v_head bigint;
      BEGIN
        IF NEW.status <> 'pending' THEN
          RAISE EXCEPTION 'actions: a new action must be pending, not %', NEW.status USING ERRCODE = '23514';
        END IF;
        NEW.attempts := 0;
        NEW.holds_group := true;
        NEW.lease_owner := NULL;
        NEW.lease_expires_at := NULL;
        NEW.attempt_started_at := NULL;
        NEW.started_at := NULL;
        NEW.finished_at := NULL;
        IF NEW.lock_id IS NULL THEN
          NEW.id := nextval('actions_id_seq');
          NEW.is_head := true;
          RETURN NEW;
        END IF;
        v_head := aq_lock_group(NEW.lock_id);
        -- The id is taken only now, under the group lock: within a group, id
        -- order is commit order (G4, DESIGN.md trap 4).
        NEW.id := nextval('actions_id_seq');
        -- The probe sees rows inserted earlier by this same statement, which
        -- head_id does not show yet (it is set by an AFTER trigger, so that a
        -- row skipped by ON CONFLICT DO NOTHING never becomes a head).
        NEW.is_head := v_head IS NULL AND NOT EXISTS (
          SELECT 1 FROM actions WHERE lock_id = NEW.lock_id AND holds_group AND lock_id IS NOT NULL
        );
        RETURN NEW;
      END $$;

      CREATE FUNCTION aq_actions_after_insert_head() RETURNS trigger
        LANGUAGE plpgsql AS $$
      BEGIN
        UPDATE action_groups SET head_id = NEW.id WHERE lock_id = NEW.lock_id;
        RETURN NULL;
      END $$;

      CREATE FUNCTION aq_actions_before_update() RETURNS trigger
        LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.id <> OLD.id OR NEW.lock_id IS DISTINCT FROM OLD.lock_id THEN
          RAISE EXCEPTION 'actions: id and lock_id of action % cannot change', OLD.id USING ERRCODE = '23514';
        END IF;
        NEW.holds_group := aq_holds_group(NEW.status, NEW.on_failure);
        IF NEW.holds_group AND NOT OLD.holds_group THEN
          RAISE EXCEPTION 'actions: action % is % and cannot become % again', OLD.id, OLD.status, NEW.status
            USING ERRCODE = '23514';
        END IF;
        IF NOT NEW.holds_group THEN
          NEW.is_head := false;
        END IF;
        RETURN NEW;
      END $$;

      CREATE FUNCTION aq_actions_notify() RETURNS trigger
        LANGUAGE plpgsql AS $$
      BEGIN
        -- One notification per transaction: identical payloads are folded.
        PERFORM pg_notify('actions_ready', '');
        RETURN NULL;
      END $$;

      CREATE TRIGGER actions_before_insert BEFORE INSERT ON actions
        FOR EACH ROW EXECUTE FUNCTION aq_actions_before_insert();
      CREATE TRIGGER actions_after_insert_head AFTER INSERT ON actions
        FOR EACH ROW WHEN (NEW.is_head AND NEW.lock_id IS NOT NULL)
        EXECUTE FUNCTION aq_actions_after_insert_head();
      -- Fires only when the row's hold on its group may change (or a key
      -- column is touched): claims, heartbeats and promotions skip PL/pgSQL.
      CREATE TRIGGER actions_before_update BEFORE UPDATE ON actions
        FOR EACH ROW WHEN (
          OLD.id <> NEW.id
          OR OLD.lock_id IS DISTINCT FROM NEW.lock_id
          OR OLD.holds_group IS DISTINCT FROM NEW.holds_group
          OR OLD.holds_group IS DISTINCT FROM (NEW.status IN ('pending', 'running') OR (NEW.status = 'failed' AND NEW.on_failure = 'block'))
        )
        EXECUTE FUNCTION aq_actions_before_update();
      CREATE TRIGGER actions_after_release AFTER UPDATE ON actions
        REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
        FOR EACH STATEMENT EXECUTE FUNCTION aq_actions_after_update_release();
      CREATE TRIGGER actions_after_delete AFTER DELETE ON actions
        REFERENCING OLD TABLE AS old_rows
        FOR EACH STATEMENT EXECUTE FUNCTION aq_actions_after_delete_release();
      CREATE TRIGGER actions_after_insert_notify AFTER INSERT ON actions
        FOR EACH STATEMENT EXECUTE FUNCTION aq_actions_notify();
    `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      DROP TABLE IF EXISTS action_attempts;
      DROP TABLE IF EXISTS action_groups;
      DROP TABLE IF EXISTS actions;
      DROP FUNCTION IF EXISTS aq_actions_notify();
      DROP FUNCTION IF EXISTS aq_actions_after_update_release();
      DROP FUNCTION IF EXISTS aq_actions_after_delete_release();
      DROP FUNCTION IF EXISTS aq_promote_groups(bigint[], bigint[]);
      DROP FUNCTION IF EXISTS aq_actions_before_update();
      DROP FUNCTION IF EXISTS aq_actions_after_insert_head();
      DROP FUNCTION IF EXISTS aq_actions_before_insert();
      DROP FUNCTION IF EXISTS aq_lock_group(bigint);
      DROP FUNCTION IF EXISTS aq_holds_group(text, text);
    `);
  }
}
