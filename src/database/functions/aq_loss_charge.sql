-- Attempts whose instance was lost: leases that expired (the reaper) and the
-- leases of an instance that must go down at once (the event-loop watchdog, a
-- fatal stray error). Poison detection lives here (see actions.quarantined):
-- a lost attempt is charged only when the action ran alone in quarantine,
-- which proves it is the one that kills instances.

-- Attempts to charge for losing an attempt: none the first time (the action
-- goes into quarantine); in quarantine the loss now, plus the earlier
-- uncharged one.
CREATE OR REPLACE FUNCTION aq_loss_charge(p_quarantined boolean, p_uncharged_losses integer)
 RETURNS integer
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
 SET search_path FROM CURRENT
AS $function$ SELECT CASE WHEN p_quarantined THEN 1 + p_uncharged_losses ELSE 0 END $function$;
