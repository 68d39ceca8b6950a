-- A resume (or a pause made shorter) may make heads claimable: wake the
-- workers, whichever way the row went (function, REST, a plain DELETE).
CREATE OR REPLACE FUNCTION aq_action_pauses_after_change_wake()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path FROM CURRENT
AS $function$
BEGIN
  -- Heads of a resumed group may sit below a connection's claim floor (023):
  -- the bump makes every connection sweep at its next claim.
  PERFORM nextval('actions_late_heads_seq');
  PERFORM aq_wake_workers();
  RETURN NULL;
END $function$;
