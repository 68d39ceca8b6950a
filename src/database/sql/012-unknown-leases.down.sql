DROP FUNCTION IF EXISTS aq_release_unknown_leases(text, bigint[], timestamptz);
