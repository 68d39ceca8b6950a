-- Recurring actions (issue 21): cron schedules enqueued exactly once per tick
-- however many instances run (docs/operator-controls.md).
--
-- Exactly once: each enqueued tick is a row of action_schedule_ticks, whose
-- primary key (schedule_name, tick_at) is inserted in the same transaction as
-- the tick's action. A second instance inserting the same tick meets the key
-- and inserts nothing (ON CONFLICT DO NOTHING), and a rolled-back action takes
-- its tick row with it, so a tick has one action or none. The schedule row is
-- also locked (FOR UPDATE SKIP LOCKED) while an instance enqueues its due
-- ticks, so instances share the work instead of racing on every key; the
-- primary key is the guarantee, the lock the economy.
--
-- next_tick_at is the schedule's cursor: the first tick not yet handled, in
-- the database clock. An instance handles ticks <= now() and moves it past
-- now(). After downtime the ticks between the cursor and now() follow the
-- schedule's catch-up policy (src/schedules/schedule-plan.ts).
-- No SQL function here: the timing (cron, time zones) is the service's.

CREATE TABLE action_schedules (
  name             text        NOT NULL,
  cron             text        NOT NULL,
  time_zone        text        NOT NULL,
  type             text        NOT NULL,
  payload          jsonb       NOT NULL DEFAULT '{}'::jsonb,
  lock_id          bigint,
  group_key        text COLLATE "C",
  -- NULL: the action's default (actions.max_attempts).
  max_attempts     integer,
  -- 'skip': ticks older than misfire_grace_ms are dropped; 'fill': the newest
  -- catch_up_limit of them are enqueued, older ones dropped.
  catch_up         text        NOT NULL DEFAULT 'skip',
  catch_up_limit   integer     NOT NULL DEFAULT 0,
  misfire_grace_ms integer     NOT NULL DEFAULT 10000,
  -- 'code': registered by a handler option, rewritten at each start-up;
  -- 'api': created at runtime (REST or SQL).
  source           text        NOT NULL DEFAULT 'api',
  next_tick_at     timestamptz NOT NULL,
  last_tick_at     timestamptz,
  skipped_ticks    bigint      NOT NULL DEFAULT 0,
  last_error       text,
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT action_schedules_pkey PRIMARY KEY (name),
  CONSTRAINT action_schedules_name_length CHECK (char_length(name) BETWEEN 1 AND 200),
  CONSTRAINT action_schedules_type_length CHECK (char_length(type) BETWEEN 1 AND 200),
  CONSTRAINT action_schedules_payload_is_object CHECK (jsonb_typeof(payload) = 'object'),
  CONSTRAINT action_schedules_one_group_name CHECK (lock_id IS NULL OR group_key IS NULL),
  CONSTRAINT action_schedules_max_attempts_positive CHECK (max_attempts >= 1),
  CONSTRAINT action_schedules_catch_up_valid CHECK (catch_up IN ('skip', 'fill')),
  CONSTRAINT action_schedules_catch_up_limit_range CHECK (catch_up_limit BETWEEN 0 AND 100),
  CONSTRAINT action_schedules_misfire_grace_range CHECK (misfire_grace_ms BETWEEN 0 AND 86400000),
  CONSTRAINT action_schedules_source_valid CHECK (source IN ('code', 'api'))
);
-- The instances' "which schedule is due" probe.
CREATE INDEX action_schedules_next_tick_idx ON action_schedules (next_tick_at);

-- One row per enqueued tick (no foreign key: the key of a deleted schedule
-- still refuses a second action for its past ticks if it is created again).
CREATE TABLE action_schedule_ticks (
  schedule_name text        NOT NULL,
  tick_at       timestamptz NOT NULL,
  -- The action enqueued for the tick; NULL with `error` when the insert was
  -- refused (e.g. the group's maximum depth): the tick is then spent.
  action_id     bigint,
  error         text,
  recorded_at   timestamptz NOT NULL DEFAULT clock_timestamp(),
  CONSTRAINT action_schedule_ticks_pkey PRIMARY KEY (schedule_name, tick_at)
);
