-- A key not used yet is interned (017-group-keys.up.sql), so a group can be
-- paused before its first action arrives.
CREATE OR REPLACE FUNCTION aq_pause_group_key(p_key text, p_reason text DEFAULT NULL::text)
 RETURNS action_pauses
 LANGUAGE sql
 SET search_path FROM CURRENT
AS $function$ SELECT aq_pause('group', NULL, aq_intern_group_key(p_key), p_reason) $function$;
