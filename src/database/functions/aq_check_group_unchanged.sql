-- REPEATABLE READ and SERIALIZABLE only (header): raises 40001 when group
-- p_lock_id's head changed since this transaction's snapshot, whose newest
-- head record is p_version (NULL: none). Every change of head since then
-- either inserted version p_version + 1 (a new head, a promotion: the probe
-- insert below conflicts with a row this snapshot cannot see, 40001) or,
-- when the group emptied, updated record p_version (emptied: the share lock
-- below meets a newer version, 40001); when p_version + 1 was deleted since
-- (eight at a time, with every older record), so was p_version: the share
-- lock meets the delete, 40001. Heartbeats and claims write
-- neither, so a producer queued behind a running head is not failed by them.
-- Both probes are undone at once by their subtransactions: no lock is kept,
-- nothing written. The writers of a group's records hold its lock, as the
-- caller does, so neither probe can meet one in progress. SECURITY DEFINER:
-- a row lock needs UPDATE on the table, which a producer role lacks.
CREATE OR REPLACE FUNCTION aq_check_group_unchanged(p_lock_id bigint, p_version bigint)
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path FROM CURRENT
AS $function$
BEGIN
  BEGIN
    IF p_version IS NOT NULL THEN
      PERFORM 1 FROM action_group_heads AS h WHERE h.lock_id = p_lock_id AND h.version = p_version FOR SHARE;
    END IF;
    INSERT INTO action_group_heads (lock_id, version, head_id) VALUES (p_lock_id, coalesce(p_version, 0) + 1, 0)
    ON CONFLICT DO NOTHING;
    RAISE SQLSTATE 'AQ039';
  EXCEPTION WHEN SQLSTATE 'AQ039' THEN
    NULL;
  END;
END $function$;
