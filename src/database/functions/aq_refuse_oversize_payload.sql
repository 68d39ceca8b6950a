-- SQL producers are held to a payload limit too (G10): a payload
-- written by SQL was unbounded, and one read of 30 such actions of 20 MB took
-- 1.5 GB in the service and answered 500.
--
-- The limit is the custom setting aq.max_payload_bytes: bytes of the payload
-- as PostgreSQL writes it as JSON text (payload::text, what every read sends).
-- Unset: 131072, twice the API's default MAX_PAYLOAD_BYTES (65536), because
-- the API measures compact JSON and PostgreSQL writes a space after every ':'
-- and ',', so a payload the API accepts is at most about twice as long here.
-- An operator raises it on purpose, for the database or for one session:
--   ALTER DATABASE <db> SET aq.max_payload_bytes = '1048576';   -- new sessions
--   SET aq.max_payload_bytes = '0';                             -- no limit, this session
-- (raise it with MAX_PAYLOAD_BYTES, to twice that, or the API's inserts of
-- the largest payloads are refused here with 413).
--
-- A trigger, not a CHECK constraint: a CHECK is evaluated on every UPDATE of a
-- row (claims, heartbeats, finishes), which would detoast every payload on the
-- hot path and make the worker unable to move an older oversize row. The
-- triggers fire only on an INSERT, or an UPDATE whose SET list names payload,
-- so rows written before this migration are left as they are (reads bound
-- their cost instead). The WHEN clause does the measuring, so a payload
-- within the limit never enters PL/pgSQL (the enqueue path stays as fast).
CREATE OR REPLACE FUNCTION aq_refuse_oversize_payload()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path FROM CURRENT
AS $function$
DECLARE
  v_limit text := coalesce(nullif(current_setting('aq.max_payload_bytes', true), ''), '131072');
BEGIN
  RAISE EXCEPTION 'payload is % bytes as JSON text, over the limit of % bytes (aq.max_payload_bytes)', octet_length(NEW.payload::text), v_limit
    USING ERRCODE = 'program_limit_exceeded',
          HINT = 'Send a smaller payload, or raise the limit on purpose: ALTER DATABASE ... SET aq.max_payload_bytes = ''<bytes>'' (0: no limit).';
END $function$;
