-- A string group key names one group for good (017-group-keys). Found by
-- trying it: `DELETE FROM action_group_keys` of a key whose actions still
-- waited let the next insert of that key intern a second lock id, a second
-- group, whose head ran before the first group's pending actions (G3 broken
-- for that key); an UPDATE renamed a group under its actions (their group_key
-- column kept the old name). The README said "not supported"; the database
-- now refuses it, as 010 refuses SQL that would let a group move on under a
-- running action.
--
-- Refused while any action of the key's group is kept (any status: a finished
-- one still answers GET /actions?groupKey= and its idempotency key). Allowed
-- once none is (the group emptied, by hand or by retention): then nothing
-- can run out of order. Not closed: an insert that has resolved the key but
-- not yet written its row, racing a DELETE that finds the group empty, could
-- still intern a second id; closing it would lock the key row on every keyed
-- insert (a row lock, multixacts under concurrency) for an operation nobody
-- needs to run.
--
-- SQLSTATE 55006 (object_in_use), as 010's guard on running actions.
CREATE OR REPLACE FUNCTION aq_action_group_keys_before_change()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path FROM CURRENT
AS $function$
BEGIN
  IF EXISTS (SELECT 1 FROM actions WHERE lock_id = OLD.lock_id) THEN
    RAISE EXCEPTION 'action_group_keys: group_key "%" (lock_id %) names a group that still has actions; keys are kept for good: deleted or renamed, the key''s next action would start a second group and run out of order', OLD.group_key, OLD.lock_id
      USING ERRCODE = '55006',
            HINT = 'Delete the group''s actions first (or let retention do it); do not write action_group_keys by hand otherwise.';
  END IF;
  IF TG_OP = 'DELETE' THEN
    RETURN OLD;
  END IF;
  RETURN NEW;
END $function$;
