DROP FUNCTION IF EXISTS aq_lease_actions(bigint[], text, int, text[], int[]);
DROP TYPE IF EXISTS aq_leased_action;
