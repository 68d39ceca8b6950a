DROP FUNCTION IF EXISTS aq_claim_actions(text, text[], int[], int, int, boolean);
