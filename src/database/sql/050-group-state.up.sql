-- Per-group state for handlers that complete in their own transaction
-- (ctx.groupState, src/queue/attempt/transactional-completion.ts).
--
-- One row per group that ever stored a state: its JSON value and a version
-- that grows by one with each completed action that changed it. Only a
-- handler's ctx.transaction writes it, in the transaction that records its
-- action done, so a state and the completion that produced it commit together
-- (a stale holder's write is rolled back with its refused completion). An
-- operator may delete a row (DELETE /groups/:lockId/state, or SQL); retention
-- deletes the rows of groups with no work left after GROUP_STATE_RETENTION_DAYS.
--
-- No foreign key to action_group_locks: retention removes an empty group's
-- lock row sooner than its state (which outlives the group's work by a window),
-- and a group's next action recreates the lock row, not the state.
CREATE TABLE action_group_states (
  lock_id    bigint PRIMARY KEY,
  state      jsonb NOT NULL,
  version    bigint NOT NULL CONSTRAINT action_group_states_version_positive CHECK (version > 0),
  updated_at timestamptz NOT NULL DEFAULT clock_timestamp()
);

-- Retention's scan: the oldest states first.
CREATE INDEX action_group_states_updated_idx ON action_group_states (updated_at);
