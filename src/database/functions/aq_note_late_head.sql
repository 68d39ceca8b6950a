-- Row level with a WHEN clause, like the wake-up triggers (010): an ordinary
-- insert (run_at defaults to now()), a claim, a hand-off and a completion
-- never enter PL/pgSQL. It fires for a plain promotion (is_head becomes true
-- on a row enqueued earlier), an operator's UPDATE that makes an old row a
-- claimable head again, and an insert with an explicit past run_at.
CREATE OR REPLACE FUNCTION aq_note_late_head()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path FROM CURRENT
AS $function$
BEGIN
  PERFORM nextval('actions_late_heads_seq');
  RETURN NULL;
END $function$;
