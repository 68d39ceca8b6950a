-- Raises unless the current transaction may end or cut short the lease of
-- running action p_old: it acts for the lease owner, or the lease has expired.
CREATE OR REPLACE FUNCTION aq_check_running_change(p_old actions, p_verb text)
 RETURNS void
 LANGUAGE plpgsql
 SET search_path FROM CURRENT
AS $function$
BEGIN
  IF p_old.lease_expires_at >= now() AND p_old.lease_owner IS DISTINCT FROM current_setting('aq.worker', true) THEN
    RAISE EXCEPTION 'actions: cannot % action %: it is running (worker %, lease until %)', p_verb, p_old.id,
      p_old.lease_owner, p_old.lease_expires_at
      USING ERRCODE = '55006',
            HINT = format('Ask its holder to stop: POST /actions/%s/cancel, or UPDATE actions SET '
                          'cancel_requested_at = now() WHERE id = %s. It ends cancelled once the handler '
                          'has stopped or its lease has expired.', p_old.id, p_old.id);
  END IF;
END $function$;
