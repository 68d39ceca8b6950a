-- 044: the insert trigger skips the group lock it can prove it holds.
--
-- Where the time went (bench/run.ts "Enqueue": one INSERT ... SELECT of
-- 100 000 rows into 1 000 new groups, row i into group i % 1 000; CPU time of
-- the inserting backend from /proc/<pid>/stat, 2026-12-03): 39-41 us per row,
-- of which about 12 is the row itself with a trigger that only sets the id.
-- Two statements run through SPI for every grouped row: the group lock
-- (SELECT ... FOR UPDATE of action_group_locks, about 8.5 us even when this
-- transaction holds it already) and the head read (the newest head record
-- joined to its action, about 15 us). perf puts nearly half of the backend's
-- time in SPI, a fifth in executor start-up alone: a plan's nodes are built
-- anew at each execution, whatever the plan caches.
--
-- The lock is only needed when this transaction does not hold it yet. Proof
-- that it does: the group's newest head record was written by this very
-- transaction, at top level (its xmin is the transaction's xid). Every writer
-- of a head record holds the group's lock while it writes (this trigger, the
-- promotions through aq_set_group_head(s), aq_promote_groups's `emptied`
-- mark; the INSERT INSTEAD OF trigger of the action_groups view creates the
-- lock row itself, which no one else can lock before it commits), a row lock
-- lasts until the top-level transaction ends, and a lock taken in a
-- subtransaction that rolled back took the records written under it along
-- (a record written in a subtransaction has that subtransaction's xid and
-- proves nothing here). A frozen record reads as xmin 2, never as a live xid.
-- The head read is then the same statement as before, run once instead of
-- after the lock: with the lock held since before its snapshot, nothing of
-- the group's head can change under it but this transaction's own writes,
-- which it sees, exactly as the read after the lock.
--
-- Reading first only pays when the record is likely this transaction's: a
-- batch that made new groups and comes back to them (the benchmark above,
-- a producer's loop inside one transaction). A transaction-local hint,
-- `aq.insert_own_records` (set_config, undone at the transaction's end),
-- turns the read-first path on when this trigger writes a head record under
-- a lock it took, and off at the first row whose newest record is not its
-- own, so a batch into other transactions' groups (`POST /actions/batch` into
-- existing groups) runs as before: lock, then read, one setting read more.
-- The hint only chooses the order; the proof is the xmin test. READ COMMITTED
-- only: the other levels keep 039's path and its aq_check_group_unchanged.
--
-- Measured (same benchmark, this trigger against 039's, alternated in one
-- session): 40.7 / 40.8 us per row before, 34.1 / 33.1 after.
--
-- Tried and not kept (bench/README.md, 2026-12-03): a per-statement memo of
-- the groups already locked, keyed by lock_id in transaction-local settings
-- (1 024 slots 'aq.group_memo_N'): 23 us per row, but on PostgreSQL 15 every
-- setting name stays in the session for good and every function with a SET
-- clause (all of the queue's) then pays a scan of all of them at its exit
-- (AtEOXact_GUC, 16 % of the backend's time); the memo in one setting as a
-- list: 12 us per row more, not less; the lock row's xmax as the proof:
-- about 1.5 us less per row, but a MultiXactId can share the number.
--
-- 052: a group belongs to one tenant. The head read above also reads the
-- tenant of the group's holding head (the oldest action that holds the
-- group); an action of another tenant is refused (SQLSTATE AQT01, naming both
-- tenants and the group). Every holding action of a group was checked against
-- the head of its time under the group's lock, so they all share one tenant,
-- and the head stands for them all: no statement more per row. A group with no
-- holding action holds no work and takes any tenant.
CREATE OR REPLACE FUNCTION aq_actions_before_insert()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path FROM CURRENT
AS $function$
DECLARE
  v_head     bigint;
  v_recorded bigint;
  v_version  bigint;
  v_emptied  boolean;
  v_mine     boolean;
  v_rc       boolean;
  v_locked   boolean := false;
  v_tenant   text;
BEGIN
  IF NEW.status <> 'pending' THEN
    RAISE EXCEPTION 'actions: a new action must be pending, not %', NEW.status USING ERRCODE = '23514';
  END IF;
  NEW.attempts := 0;
  NEW.charged_attempts := 0;
  NEW.holds_group := true;
  NEW.lease_owner := NULL;
  NEW.lease_expires_at := NULL;
  NEW.attempt_started_at := NULL;
  NEW.started_at := NULL;
  NEW.finished_at := NULL;
  NEW.cancel_requested_at := NULL;
  NEW.quarantined := false;
  NEW.uncharged_losses := 0;
  IF NEW.lock_id IS NULL THEN
    NEW.id := nextval('actions_id_seq');
    NEW.is_head := true;
    RETURN NEW;
  END IF;
  v_rc := current_setting('transaction_isolation') = 'read committed';
  -- Read first when the hint says this transaction's own records are likely
  -- (header): the read proves the lock when the newest record is its own.
  IF v_rc AND current_setting('aq.insert_own_records', true) = 'on' THEN
    SELECT r.head_id, r.version, r.emptied, r.mine, a.id, a.tenant INTO v_recorded, v_version, v_emptied, v_mine, v_head, v_tenant
    FROM (SELECT h.head_id, h.version, h.emptied, h.xmin = pg_current_xact_id_if_assigned()::xid AS mine
          FROM action_group_heads AS h WHERE h.lock_id = NEW.lock_id ORDER BY h.version DESC LIMIT 1) AS r
    LEFT JOIN actions AS a ON a.id = r.head_id AND a.holds_group;
    v_locked := v_mine IS TRUE;
    IF NOT v_locked THEN
      -- Not its own (or no record): this row takes the lock as before, and
      -- so do the next ones until this trigger writes a record again.
      PERFORM set_config('aq.insert_own_records', '', true);
    END IF;
  END IF;
  IF NOT v_locked THEN
    -- 039's path. The group's lock row, created on first use; loops because
    -- retention deletes empty groups' rows (004).
    LOOP
      PERFORM 1 FROM action_group_locks WHERE lock_id = NEW.lock_id FOR UPDATE;
      EXIT WHEN FOUND;
      INSERT INTO action_group_locks (lock_id) VALUES (NEW.lock_id) ON CONFLICT DO NOTHING;
    END LOOP;
    -- Read after the lock (a statement of its own, so READ COMMITTED sees what
    -- the previous holder committed): the newest record, and whether its head
    -- holds the group.
    SELECT r.head_id, r.version, r.emptied, a.id, a.tenant INTO v_recorded, v_version, v_emptied, v_head, v_tenant
    FROM (SELECT h.head_id, h.version, h.emptied FROM action_group_heads AS h WHERE h.lock_id = NEW.lock_id ORDER BY h.version DESC LIMIT 1) AS r
    LEFT JOIN actions AS a ON a.id = r.head_id AND a.holds_group;
  END IF;
  -- (No record at all: a lock row this statement just made, an empty group.)
  IF v_head IS NULL AND v_emptied IS FALSE THEN
    -- The recorded head no longer holds, and no promotion has marked its
    -- group emptied: a release earlier in this same statement may have left
    -- an action queued behind it for the statement's end to promote, or the
    -- record names a row ON CONFLICT skipped (039).
    SELECT a.id, a.tenant INTO v_head, v_tenant FROM actions AS a
    WHERE a.lock_id = NEW.lock_id AND a.holds_group AND a.lock_id IS NOT NULL AND a.id > v_recorded
    ORDER BY a.lock_id, a.id LIMIT 1;
  END IF;
  IF v_head IS NOT NULL AND v_tenant <> NEW.tenant THEN
    RAISE EXCEPTION 'actions: group % holds work of tenant "%"; an action of tenant "%" cannot join it', NEW.lock_id, v_tenant, NEW.tenant
      USING ERRCODE = 'AQT01', CONSTRAINT = 'action_group_tenant',
            HINT = 'A group belongs to one tenant while it holds work: use another group, or the same tenant (docs/tenants.md).';
  END IF;
  IF NOT v_rc THEN
    PERFORM aq_check_group_unchanged(NEW.lock_id, v_version);
  END IF;
  -- The id is taken only now, under the group lock (G4: docs/guarantees.md).
  NEW.id := nextval('actions_id_seq');
  NEW.is_head := v_head IS NULL;
  IF NEW.is_head THEN
    -- Written before the row (039, point 4), with the version read above.
    v_version := coalesce(v_version, 0) + 1;
    INSERT INTO action_group_heads (lock_id, version, head_id) VALUES (NEW.lock_id, v_version, NEW.id)
    ON CONFLICT DO NOTHING;
    IF NOT FOUND THEN
      RAISE EXCEPTION 'actions: the head record of group % changed under its lock', NEW.lock_id USING ERRCODE = '40001';
    END IF;
    IF v_version % 8 = 0 THEN
      DELETE FROM action_group_heads AS h WHERE h.lock_id = NEW.lock_id AND h.version >= v_version - 8 AND h.version < v_version;
    END IF;
    -- A record of its own, under a lock it holds: later rows of this
    -- transaction into this group may read first (header).
    IF v_rc AND NOT v_locked AND current_setting('aq.insert_own_records', true) IS DISTINCT FROM 'on' THEN
      PERFORM set_config('aq.insert_own_records', 'on', true);
    END IF;
  END IF;
  RETURN NEW;
END $function$;
