-- flow control: refills and locks the buckets of the limited types among
-- p_types and says how many heads of each may start now (at most p_want).
-- The row locks last until the calling claim commits, so the tokens it spends
-- are not spent twice.
-- The bucket holds up to burst + 0.999 tokens, of which only whole ones are
-- spent: at most `burst` start at once, and the part of a token that accrued
-- while a worker was waking up is carried, not lost. With a cap of exactly
-- `burst`, a burst of 1 lost each wake-up's latency: 20/s measured 16.3/s
-- over two instances (test/process/rate-limits.process-spec.ts).
CREATE OR REPLACE FUNCTION aq_flow_take_tokens(p_types text[], p_want integer)
 RETURNS TABLE(type text, allowance integer)
 LANGUAGE plpgsql
 SET search_path FROM CURRENT
AS $function$
BEGIN
  RETURN QUERY
  UPDATE action_rate_limits AS b
  SET tokens      = least(b.burst + 0.999, b.tokens + extract(epoch FROM clock_timestamp() - b.refilled_at) * b.per_second),
      refilled_at = clock_timestamp()
  WHERE b.type = ANY(p_types) AND b.per_second IS NOT NULL
  RETURNING b.type, least(p_want, floor(b.tokens))::int;
END $function$;
