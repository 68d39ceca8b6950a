-- Release trigger (statement level, with transition tables) for UPDATE and
-- DELETE: the groups whose head stopped holding them get their next head.
-- One head per group, so each released group appears once.
CREATE OR REPLACE FUNCTION aq_actions_after_release()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path FROM CURRENT
AS $function$
DECLARE
  v_groups bigint[];
  v_after  bigint[];
BEGIN
  IF TG_OP = 'DELETE' THEN
    SELECT array_agg(o.lock_id ORDER BY o.lock_id), array_agg(o.id ORDER BY o.lock_id) INTO v_groups, v_after
    FROM old_rows AS o
    WHERE o.is_head AND o.holds_group AND o.lock_id IS NOT NULL;
  ELSE
    SELECT array_agg(o.lock_id ORDER BY o.lock_id), array_agg(o.id ORDER BY o.lock_id) INTO v_groups, v_after
    FROM old_rows AS o JOIN new_rows AS n ON n.id = o.id
    WHERE o.is_head AND o.holds_group AND NOT n.holds_group AND o.lock_id IS NOT NULL;
  END IF;
  IF v_groups IS NOT NULL THEN
    PERFORM aq_promote_groups(v_groups, v_after);
  END IF;
  RETURN NULL;
END $function$;
