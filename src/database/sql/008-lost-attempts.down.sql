DROP FUNCTION IF EXISTS aq_release_worker(text, bigint, text, int);
DROP FUNCTION IF EXISTS aq_reap_expired_leases(int);
DROP FUNCTION IF EXISTS aq_end_lost_attempts(bigint[], bigint, text, text, int, boolean);
DROP FUNCTION IF EXISTS aq_loss_charge(boolean, int);
