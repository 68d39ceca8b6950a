-- Tables of the queue: `actions`, the `action_groups` lock rows and the
-- append-only `action_attempts` trace. Rules that keep group order live in
-- 004-group-order.sql; the worker's statements in 005-worker-fast-path.sql.
-- Changes here must be reflected in README.md ("How it works") and in the
-- entities under src/actions/ (the schema snapshot test compares them).

-- A database migrated by version 0.1 (migrations CreateActionQueue1764460800000
-- and AddClaimAndFinishFunctions1764460900000) has these tables already: stop
-- with a clear message instead of half-applying.
DO $$ BEGIN
  IF to_regclass('actions') IS NOT NULL THEN
    RAISE EXCEPTION 'actions: this database holds a version 0.1 queue schema; drain it and migrate a new database (see docs/operations.md, "Upgrading from 0.1")';
  END IF;
END $$;

CREATE SEQUENCE actions_id_seq AS bigint;

CREATE TABLE actions (
  -- Assigned by aq_actions_before_insert from actions_id_seq under the group
  -- lock (G4); a value a client sends is replaced. No column default: it would
  -- draw a second, wasted sequence value per row.
  id                  bigint      NOT NULL,
  lock_id             bigint,
  type                text        NOT NULL,
  payload             jsonb       NOT NULL DEFAULT '{}'::jsonb,
  status              text        NOT NULL DEFAULT 'pending',
  -- Kept by triggers; clients never set these two.
  is_head             boolean     NOT NULL DEFAULT false,
  holds_group         boolean     NOT NULL DEFAULT true,
  -- Executions started so far; the attempt number is the fencing token.
  attempts            integer     NOT NULL DEFAULT 0,
  -- Attempts that count toward max_attempts. A release (shutdown) is never
  -- charged; a lost lease is charged only once the action is proven to kill
  -- instances (see `quarantined`); a manual retry starts again from 0.
  charged_attempts    integer     NOT NULL DEFAULT 0,
  max_attempts        integer     NOT NULL DEFAULT 5,
  on_failure          text        NOT NULL DEFAULT 'block',
  run_at              timestamptz NOT NULL DEFAULT now(),
  created_at          timestamptz NOT NULL DEFAULT now(),
  started_at          timestamptz,
  finished_at         timestamptz,
  result              jsonb,
  last_error          text,
  idempotency_key     text,
  retry_of            bigint,
  -- The lease of the current attempt: owner, expiry (database clock) and start.
  lease_owner         text,
  lease_expires_at    timestamptz,
  attempt_started_at  timestamptz,
  -- POST /actions/:id/cancel of a running action: the holder aborts the
  -- handler; the action ends `cancelled` when it has stopped or its lease expired.
  cancel_requested_at timestamptz,
  -- Poison detection. An attempt that ended because its instance was lost
  -- (lease expired, instance fenced) puts the action in quarantine without
  -- charging it (uncharged_losses = 1): its next attempt runs alone on an
  -- instance. Losing that one too proves it is the culprit: both are charged.
  quarantined         boolean     NOT NULL DEFAULT false,
  uncharged_losses    integer     NOT NULL DEFAULT 0,
  CONSTRAINT actions_pkey PRIMARY KEY (id),
  CONSTRAINT actions_status_valid CHECK (status IN ('pending', 'running', 'done', 'failed', 'cancelled')),
  CONSTRAINT actions_on_failure_valid CHECK (on_failure IN ('block', 'skip')),
  CONSTRAINT actions_type_length CHECK (char_length(type) BETWEEN 1 AND 200),
  CONSTRAINT actions_payload_is_object CHECK (jsonb_typeof(payload) = 'object'),
  CONSTRAINT actions_max_attempts_positive CHECK (max_attempts >= 1),
  CONSTRAINT actions_attempts_in_range CHECK (attempts >= 0 AND charged_attempts BETWEEN 0 AND attempts),
  CONSTRAINT actions_idempotency_key_length CHECK (char_length(idempotency_key) BETWEEN 1 AND 200),
  -- JavaScript dates (and the API) cover 1970..9999; 'infinity' would make the
  -- action unreadable through the API.
  CONSTRAINT actions_run_at_in_range CHECK (run_at >= '1970-01-01' AND run_at < '10000-01-01'),
  -- A lease exists exactly while the action runs: fenced statements may test
  -- "lease_owner = me" alone.
  CONSTRAINT actions_lease_iff_running CHECK (
    (status = 'running') = (lease_owner IS NOT NULL AND lease_expires_at IS NOT NULL)
  )
);
ALTER SEQUENCE actions_id_seq OWNED BY actions.id;

-- The claim index: exactly the claimable rows, in the claim's ORDER BY order.
-- Its size is the number of claimable heads, not the backlog, so a group with
-- 100 000 pending actions adds one entry (DESIGN.md, trap 5). Quarantined
-- heads have their own index: they are claimed one at a time, by an idle worker.
CREATE INDEX actions_claimable_idx ON actions (run_at, id)
  WHERE is_head AND status = 'pending' AND NOT quarantined;
CREATE INDEX actions_quarantined_idx ON actions (run_at, id)
  WHERE is_head AND status = 'pending' AND quarantined;

-- Finds the next head of a group on promotion.
CREATE INDEX actions_group_holding_idx ON actions (lock_id, id)
  WHERE holds_group AND lock_id IS NOT NULL;

-- The reaper's scan of running rows (few: at most the total concurrency).
-- lease_expires_at is deliberately not indexed, so a heartbeat, which changes
-- only that column, can be a HOT update.
CREATE INDEX actions_running_idx ON actions (id) WHERE status = 'running';

-- Listing, stats and retention. Every status change writes a new row version
-- into every index whose predicate it matches, so these are partial: a version
-- lands in at most one status index, and the group listing index takes only
-- finished rows. Listing `done` walks the primary key.
CREATE INDEX actions_pending_idx ON actions (id) WHERE status = 'pending';
CREATE INDEX actions_failed_idx ON actions (id) WHERE status = 'failed';
CREATE INDEX actions_cancelled_idx ON actions (id) WHERE status = 'cancelled';
CREATE INDEX actions_group_finished_idx ON actions (lock_id, id) WHERE lock_id IS NOT NULL AND NOT holds_group;
CREATE INDEX actions_finished_at_idx ON actions (finished_at) WHERE finished_at IS NOT NULL AND NOT holds_group;
CREATE UNIQUE INDEX actions_idempotency_key_uq ON actions (idempotency_key) WHERE idempotency_key IS NOT NULL;
-- A failed 'skip' action is re-enqueued at most once (POST /actions/:id/retry).
CREATE UNIQUE INDEX actions_retry_of_uq ON actions (retry_of) WHERE retry_of IS NOT NULL;

-- One row per group: the lock every group change takes, and the head.
CREATE TABLE action_groups (
  lock_id    bigint      NOT NULL,
  head_id    bigint,
  created_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT action_groups_pkey PRIMARY KEY (lock_id)
);

-- Append-only: one row per ended execution attempt, written by the statement
-- that ends it. Apart from `actions`, so history never bloats the claim index.
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
  -- The stack of a thrown Error (head only; see src/queue/thrown-value.ts).
  error_stack text,
  -- One row per attempt: attempt numbers are fencing tokens, so a second row
  -- for one attempt would mean two holders (G2).
  CONSTRAINT action_attempts_pkey PRIMARY KEY (action_id, attempt),
  CONSTRAINT action_attempts_action_fk FOREIGN KEY (action_id) REFERENCES actions (id) ON DELETE CASCADE,
  CONSTRAINT action_attempts_outcome_valid
    CHECK (outcome IN ('done', 'error', 'timeout', 'cancelled', 'lease_expired', 'released'))
);

-- Hot tables: vacuum early so dead tuples of status changes stay few.
ALTER TABLE actions SET (autovacuum_vacuum_scale_factor = 0.02, autovacuum_analyze_scale_factor = 0.02, fillfactor = 80);
ALTER TABLE action_groups SET (autovacuum_vacuum_scale_factor = 0.02, fillfactor = 70);
