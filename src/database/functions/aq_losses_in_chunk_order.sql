-- 043: a chunk's lost rows go back from its end, never its head alone.
--
-- The rows of an ordered chunk (042) are leased together, but the functions
-- that end lost attempts picked them one row at a time:
-- - the reaper (008) took the expired rows it could lock (SKIP LOCKED): two
--   reapers running at once each locked part of a chunk, and a heartbeat
--   that found one row of a chunk locked extended the others only, so that
--   the head expired before its members;
-- - the release of unknown leases (012) took the rows granted before its
--   cutoff, by attempt_started_at: the members are leased after their head,
--   in the same transaction, and on a loaded machine up to a second later,
--   so the cutoff fell between them (seen: head released at one round, its
--   19 members at the next).
-- Either way the chunk's head went back to `pending`, the group's head and
-- claimable, while later members stayed `running` under the lost lease:
-- another worker ran the head while an action behind it was still held (two
-- holders in one group; in the trace, the member's lost attempt overlapped
-- the head's next one).
--
-- The rule, in one place (aq_losses_in_chunk_order): of an ordered chunk
-- (same chunk_of, same lease owner) a round ends a row as lost only with
-- every running row of the chunk behind it. The running rows of a chunk
-- stay a prefix of it, as the finishing statement's fence of the prefix (042,
-- point 4) assumes, and members go back before their head, never after it.
-- The rows left out stay as they are until a later round (one reaper
-- interval, or until the members' leases expire too: at most one lease
-- longer, and the worker's fence has stopped the chunk at the earliest of
-- its deadlines).
--
-- Replaces aq_reap_expired_leases(int) (008) and
-- aq_release_unknown_leases(text, bigint[], timestamptz) (012); adds
-- aq_losses_in_chunk_order(bigint[]). aq_end_lost_attempts (042) and
-- aq_release_worker (008: every row of a worker, whole chunks) are unchanged.

-- Of the running rows p_ids, locked by the caller to end them as lost, the
-- ones it may end now: a row run alone, and a row of an ordered chunk when
-- every running row of its chunk with a greater id is in p_ids too.
CREATE OR REPLACE FUNCTION aq_losses_in_chunk_order(p_ids bigint[])
 RETURNS bigint[]
 LANGUAGE plpgsql
 SET search_path FROM CURRENT
AS $function$
DECLARE
  v_chunks bigint[];
BEGIN
  v_chunks := ARRAY(SELECT DISTINCT a.chunk_of FROM actions AS a WHERE a.id = ANY(p_ids) AND a.chunk_of IS NOT NULL);
  IF cardinality(v_chunks) = 0 THEN
    RETURN p_ids;
  END IF;
  -- The running rows of those chunks (actions_running_idx: running rows are
  -- few), each with whether it and every running row of its chunk after it
  -- were taken. A statement of its own: rows other transactions held are
  -- read as they committed since.
  RETURN ARRAY(
    SELECT a.id FROM actions AS a WHERE a.id = ANY(p_ids) AND a.chunk_of IS NULL
    UNION ALL
    SELECT t.id FROM (
      SELECT m.id, m.id = ANY(p_ids) AS taken,
             bool_and(m.id = ANY(p_ids)) OVER (PARTITION BY m.chunk_of, m.lease_owner ORDER BY m.id DESC) AS tail_taken
      FROM actions AS m
      WHERE m.status = 'running' AND m.chunk_of = ANY(v_chunks)
    ) AS t
    WHERE t.taken AND t.tail_taken);
END $function$;
