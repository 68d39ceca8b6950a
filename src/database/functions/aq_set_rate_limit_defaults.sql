-- Writes the handlers' default limits of one instance at start-up: for each
-- p_types[i], p_per_second[i] / p_burst[i] (NULL: the handler sets none,
-- which removes an old default). Overrides are left as they are.
CREATE OR REPLACE FUNCTION aq_set_rate_limit_defaults(p_types text[], p_per_second double precision[], p_burst integer[])
 RETURNS void
 LANGUAGE sql
 SET search_path FROM CURRENT
AS $function$
  INSERT INTO action_rate_limits AS b (type, default_per_second, default_burst, tokens)
  SELECT t.type, t.per_second, t.burst, coalesce(t.burst, 1)
  FROM unnest(p_types, p_per_second, p_burst) AS t(type, per_second, burst)
  WHERE t.per_second IS NOT NULL
  ON CONFLICT (type) DO UPDATE
    SET default_per_second = excluded.default_per_second, default_burst = excluded.default_burst, updated_at = now()
    WHERE (b.default_per_second, b.default_burst) IS DISTINCT FROM (excluded.default_per_second, excluded.default_burst);
  UPDATE action_rate_limits AS b SET default_per_second = NULL, default_burst = NULL, updated_at = now()
  FROM unnest(p_types, p_per_second) AS t(type, per_second)
  WHERE b.type = t.type AND t.per_second IS NULL AND b.default_per_second IS NOT NULL;
  DELETE FROM action_rate_limits AS b WHERE b.type = ANY(p_types) AND b.per_second IS NULL;
$function$;
