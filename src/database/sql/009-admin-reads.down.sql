DROP FUNCTION IF EXISTS aq_roll_up_activity(interval, interval, int);
DROP TABLE IF EXISTS action_activity_rollup;
DROP TABLE IF EXISTS action_activity;
DROP INDEX IF EXISTS actions_blocked_idx;
