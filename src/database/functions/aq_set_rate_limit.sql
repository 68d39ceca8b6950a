-- Sets (or with NULL clears) the operator's override of type p_type's limit.
-- Returns the row (NULL when cleared to nothing). Raises 22023 on a bad value.
CREATE OR REPLACE FUNCTION aq_set_rate_limit(p_type text, p_per_second double precision, p_burst integer DEFAULT 1)
 RETURNS action_rate_limits
 LANGUAGE plpgsql
 SET search_path FROM CURRENT
AS $function$
DECLARE
  v_row action_rate_limits;
BEGIN
  INSERT INTO action_rate_limits AS b (type, override_per_second, override_burst, tokens)
  VALUES (p_type, p_per_second, CASE WHEN p_per_second IS NULL THEN NULL ELSE p_burst END, coalesce(p_burst, 1))
  ON CONFLICT (type) DO UPDATE
    SET override_per_second = excluded.override_per_second,
        override_burst      = excluded.override_burst,
        tokens              = least(b.tokens, coalesce(excluded.override_burst, b.default_burst, 1)),
        updated_at          = now()
  RETURNING * INTO v_row;
  -- Nothing left to enforce: forget the bucket.
  DELETE FROM action_rate_limits AS b WHERE b.type = p_type AND b.per_second IS NULL;
  -- A higher limit may let waiting heads start now.
  PERFORM aq_wake_workers();
  RETURN CASE WHEN v_row.per_second IS NULL THEN NULL ELSE v_row END;
EXCEPTION WHEN check_violation THEN
  RAISE EXCEPTION 'actions: invalid rate limit for type %: % per second, burst %', p_type, p_per_second, p_burst USING ERRCODE = '22023';
END $function$;
