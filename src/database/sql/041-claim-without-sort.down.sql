ALTER FUNCTION aq_claim_actions(text, text[], integer[], integer, integer, boolean) RESET enable_sort;
