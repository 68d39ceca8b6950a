-- Upgrade from release 0.1 (migrations CreateActionQueue1764460800000 and
-- AddClaimAndFinishFunctions1764460900000), step 1 of 2: puts the 0.1 tables
-- aside. Run by src/database/release-0.1-upgrade.ts in ONE transaction with
-- the baseline chain (001..010) and step 2 (upgrade-0.1-copy.sql): a failure
-- anywhere leaves the 0.1 database exactly as it was.

-- No 0.1 statement may run from here to the commit: SQL producers wait for
-- these locks and afterwards find the new tables (PostgreSQL looks a table's
-- name up again once a lock it waited for is granted). `actions` first, as
-- every 0.1 statement touches it before action_groups: a producer's open
-- transaction is waited for, never deadlocked with.
LOCK TABLE actions, action_groups, action_attempts IN ACCESS EXCLUSIVE MODE;

-- A schema of its own, so the indexes, constraints and sequences go with
-- their tables and their names are free for 001-tables.up.sql.
CREATE SCHEMA aq_release_0_1;
ALTER TABLE actions SET SCHEMA aq_release_0_1;
ALTER TABLE action_groups SET SCHEMA aq_release_0_1;
ALTER TABLE action_attempts SET SCHEMA aq_release_0_1;

-- 0.1's functions; CASCADE drops its triggers on the tables put aside, so
-- nothing fires while they are read.
DROP FUNCTION aq_finish_attempts(text, bigint[], int[], text[], jsonb[], text[], int[], text[], text[], int, int);
DROP FUNCTION aq_claim_actions(text, text[], int, int);
DROP FUNCTION aq_actions_notify() CASCADE;
DROP FUNCTION aq_actions_after_update_release() CASCADE;
DROP FUNCTION aq_actions_after_delete_release() CASCADE;
DROP FUNCTION aq_actions_after_insert_head() CASCADE;
DROP FUNCTION aq_actions_before_insert() CASCADE;
DROP FUNCTION aq_actions_before_update() CASCADE;
DROP FUNCTION aq_promote_groups(bigint[], bigint[]);
DROP FUNCTION aq_lock_group(bigint);
DROP FUNCTION aq_holds_group(text, text);
