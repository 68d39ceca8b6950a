-- Group order (G3) and commit order (G4) for every writer, SQL producers included
-- (G5). Invariants kept by the triggers below:
-- - A row holds its group while pending, running, or failed under `block`
--   (holds_group); terminal rows never hold it again.
-- - The holding row with the smallest id is the head (is_head), the only one of
--   its group that may be claimed; rows without a lock id are always heads.
-- - action_groups.head_id mirrors the head; every change writes the group row, so
--   a REPEATABLE READ producer with a stale view gets a serialization error.
-- - Ids are taken under the group lock: within a group, id order is commit order.
-- - Only its lease owner may end, delete or cut short the lease of a running
--   action while the lease is live, so no out-of-band SQL lets the next action of
--   its group start under it. Promotion is in 005-promotion.up.sql.
CREATE OR REPLACE FUNCTION aq_holds_group(status text, on_failure text)
 RETURNS boolean
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
 SET search_path FROM CURRENT
AS $function$ SELECT status IN ('pending', 'running') OR (status = 'failed' AND on_failure = 'block') $function$;
