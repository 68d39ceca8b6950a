-- Operator SQL that row triggers do not see, or that they saw without waking
-- anyone (found by trying it: "no out-of-band change breaks a group", and
-- "a scheduled action starts on time whatever the poll").

-- TRUNCATE fires no row trigger: it would pass the guard on running actions
-- (004-group-order.up.sql) and leave action_groups.head_id pointing at rows
-- that are gone, so the group's next insert would never become its head.
-- Refused while any action runs under a live lease (the same rule, and the
-- same SQLSTATE, as a DELETE of one); TRUNCATE holds ACCESS EXCLUSIVE on
-- actions before this runs, so no claim can slip in between.
CREATE OR REPLACE FUNCTION aq_actions_before_truncate()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path FROM CURRENT
AS $function$
DECLARE
  v_running actions;
BEGIN
  SELECT * INTO v_running FROM actions
  WHERE status = 'running' AND lease_expires_at >= now()
  ORDER BY id LIMIT 1;
  IF FOUND THEN
    PERFORM aq_check_running_change(v_running, 'truncate the table holding');
  END IF;
  RETURN NULL;
END $function$;
