-- The probes go back to plain statements sent by the service (its older release).
DROP FUNCTION aq_wake_probe(text[], boolean, int, int, int);
DROP FUNCTION aq_next_due(text[]);
