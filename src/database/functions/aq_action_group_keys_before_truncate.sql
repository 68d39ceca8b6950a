-- TRUNCATE fires no row trigger: refused while any string-keyed action is kept
-- (the reserved lock id range; an index range scan).
CREATE OR REPLACE FUNCTION aq_action_group_keys_before_truncate()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path FROM CURRENT
AS $function$
DECLARE
  v_action actions;
BEGIN
  SELECT * INTO v_action FROM actions WHERE lock_id <= -9223090561878065153 ORDER BY lock_id LIMIT 1;
  IF FOUND THEN
    RAISE EXCEPTION 'action_group_keys: cannot truncate: action % (group_key "%") and maybe others still use their keys; keys are kept for good', v_action.id, v_action.group_key
      USING ERRCODE = '55006',
            HINT = 'TRUNCATE actions first, then action_group_keys (a TRUNCATE naming both checks before either is emptied).';
  END IF;
  RETURN NULL;
END $function$;
