-- The one way for SQL producers that works in both modes (docs/sql-producers.md,
-- docs/scale-out.md): enqueue one action and get back the schema it went to
-- and its id.
-- - Plain PostgreSQL (aq.citus_partitions unset): an INSERT into this
--   schema's actions, exactly as a plain INSERT (G5).
-- - Citus mode (aq.citus_partitions and aq.citus_prefix set on the
--   coordinator's database by the partitions' provisioning): the INSERT goes
--   to the group's partition, <prefix>_p<aq_partition_of(group, N)>; an
--   action without a group to a random partition. The insert trigger runs on
--   the node of that partition, locks the group and takes the id there, and
--   the lock is held until the caller's transaction commits (one node: one
--   commit; several: two-phase, each node's lock until its own commit), so
--   within a group id order is commit order (G4) as on one server.
-- Dynamic SQL because the target schema is data; format's %I quotes it.
CREATE OR REPLACE FUNCTION aq_enqueue(p_type text, p_payload jsonb DEFAULT '{}'::jsonb, p_lock_id bigint DEFAULT NULL, p_group_key text DEFAULT NULL, p_run_at timestamptz DEFAULT NULL)
 RETURNS TABLE(queue_schema text, action_id bigint)
 LANGUAGE plpgsql
 SET search_path FROM CURRENT
AS $function$
DECLARE
  v_partitions integer := nullif(current_setting('aq.citus_partitions', true), '')::integer;
  v_prefix text := nullif(current_setting('aq.citus_prefix', true), '');
  v_group text := coalesce(p_group_key, p_lock_id::text);
  v_schema text := current_schema();
BEGIN
  IF v_partitions IS NOT NULL AND v_prefix IS NOT NULL THEN
    v_schema := v_prefix || '_p' || CASE WHEN v_group IS NULL THEN floor(random() * v_partitions)::integer ELSE aq_partition_of(v_group, v_partitions) END;
  END IF;
  RETURN QUERY EXECUTE format(
    'INSERT INTO %I.actions (type, payload, lock_id, group_key, run_at) VALUES ($1, $2, $3, $4, coalesce($5, now())) RETURNING %L::text, id',
    v_schema, v_schema)
    USING p_type, p_payload, p_lock_id, p_group_key, p_run_at;
END
$function$;
