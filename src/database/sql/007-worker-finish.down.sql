DROP FUNCTION IF EXISTS aq_finish_attempts(text, bigint[], int[], text[], jsonb[], text[], text[], int[], text[], int[], text[], int[], int, int);
