-- Statement level: one call per INSERT statement, however many rows.
CREATE OR REPLACE FUNCTION aq_actions_after_insert_wake()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path FROM CURRENT
AS $function$
BEGIN
  PERFORM aq_wake_workers();
  RETURN NULL;
END $function$;
