-- Every function of the queue resolves names in the queue's own schema.
--
-- Until now the trigger functions and the worker's functions resolved the
-- tables and helpers they use (actions, action_groups, aq_lock_group, ...)
-- through the CALLER's search_path. A producer whose search_path does not
-- hold the queue's schema (`SET search_path = other`, the hardened `''`, or
-- `app, public` where `app` has an `actions` table of its own) got
-- "42883 function aq_lock_group(bigint) does not exist" on a fully qualified
-- `INSERT INTO public.actions`, or worse, its triggers read the other table.
--
-- The migration runner runs each migration with the transaction's search_path
-- set to exactly the queue's schema (src/database/migrations/sql-file-migration.ts),
-- so `SET search_path FROM CURRENT` pins each function to that schema
-- (pg_catalog is searched first anyway, as always). Functions created by
-- later migrations carry the same clause themselves; the test
-- "every function in the queue's schema pins its search_path"
-- (test/database/search-path.db-spec.ts) refuses one that forgets.
--
-- Cost: a function with a SET clause saves and restores the setting on every
-- call and is never inlined; only two tiny IMMUTABLE helpers could have been
-- (aq_holds_group, aq_loss_charge), and neither is used where inlining
-- matters (an index or a scan predicate). Measured on the insert triggers
-- (INSERT ... SELECT of 20 000 rows into 200 groups, 12 rounds alternating
-- between a database with this migration and one without, 2-core shared
-- machine): median 26 348 rows/s pinned, 24 016 unpinned, within the noise.
-- A SET LOCAL of another setting inside such a function (aq.worker in
-- aq_act_for_worker) still lasts until the transaction ends: only the
-- function's own SET clause is undone at its exit.
DO $$
DECLARE
  f record;
BEGIN
  FOR f IN
    SELECT p.oid::regprocedure AS signature
    FROM pg_proc AS p
    WHERE p.pronamespace = current_schema()::regnamespace
      -- Functions an extension installed in the schema are the extension's.
      AND NOT EXISTS (SELECT 1 FROM pg_depend AS d WHERE d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e')
  LOOP
    EXECUTE format('ALTER ROUTINE %s SET search_path FROM CURRENT', f.signature);
  END LOOP;
END $$;
