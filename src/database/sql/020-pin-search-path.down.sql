-- The functions of migrations 001-010 resolve names through the caller's
-- search_path again, as they did before. Functions of later migrations pin
-- their search_path in their own CREATE and keep it (a function of 001-010
-- that a later migration replaced loses it here too: revert that migration
-- first to get the release's function back).
DO $$
DECLARE
  f record;
BEGIN
  FOR f IN
    SELECT p.oid::regprocedure AS signature
    FROM pg_proc AS p
    WHERE p.pronamespace = current_schema()::regnamespace
      AND p.proname IN (
        'aq_wake_workers', 'aq_actions_after_insert_wake', 'aq_lease_actions', 'aq_holds_group',
        'aq_act_for_worker', 'aq_lock_group', 'aq_actions_before_insert', 'aq_actions_after_insert_head',
        'aq_check_running_change', 'aq_actions_before_update', 'aq_actions_before_delete',
        'aq_promote_groups', 'aq_actions_after_release', 'aq_claim_actions', 'aq_finish_attempts',
        'aq_loss_charge', 'aq_end_lost_attempts', 'aq_reap_expired_leases', 'aq_release_worker',
        'aq_roll_up_activity', 'aq_actions_before_truncate', 'aq_actions_after_truncate',
        'aq_actions_after_update_wake')
  LOOP
    EXECUTE format('ALTER ROUTINE %s RESET search_path', f.signature);
  END LOOP;
END $$;
