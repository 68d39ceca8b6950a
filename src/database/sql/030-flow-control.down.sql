-- Back to no pauses. The claim and the hand-off's filter are 031's (restored
-- by 031-rate-limits.down.sql, which runs first). Trace rows with the
-- `backed_off` outcome become `released`, which is what they were to the
-- queue (an uncharged release).
DROP TRIGGER IF EXISTS action_pauses_after_change_wake ON action_pauses;
DROP FUNCTION IF EXISTS aq_action_pauses_after_change_wake();
DROP FUNCTION IF EXISTS aq_resume_group_key(text);
DROP FUNCTION IF EXISTS aq_pause_group_key(text, text);
DROP FUNCTION IF EXISTS aq_resume_group(bigint);
DROP FUNCTION IF EXISTS aq_pause_group(bigint, text);
DROP FUNCTION IF EXISTS aq_resume_type(text);
DROP FUNCTION IF EXISTS aq_pause_type(text, text, bigint);
DROP FUNCTION IF EXISTS aq_resume_queue();
DROP FUNCTION IF EXISTS aq_pause_queue(text);
DROP FUNCTION IF EXISTS aq_resume(text, text, bigint);
DROP FUNCTION IF EXISTS aq_pause(text, text, bigint, text, bigint);
DROP FUNCTION IF EXISTS aq_flow_claimable_types(text[]);
DROP TABLE IF EXISTS action_pauses;

UPDATE action_attempts SET outcome = 'released' WHERE outcome = 'backed_off';
ALTER TABLE action_attempts DROP CONSTRAINT action_attempts_outcome_valid;
ALTER TABLE action_attempts ADD CONSTRAINT action_attempts_outcome_valid
  CHECK (outcome IN ('done', 'error', 'timeout', 'cancelled', 'lease_expired', 'released'));
