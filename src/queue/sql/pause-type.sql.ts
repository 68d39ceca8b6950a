/**
 * A handler's whole-type back-off: pauses action type `$1::text` for
 * `$2::bigint` ms (database clock) through aq_pause_type
 * (src/database/functions/aq_pause_type.sql), so no instance claims it
 * meanwhile. An open-ended operator pause of the type stays open-ended; a
 * longer timed one stays longer. `$3::text` the reason shown in GET /pauses.
 */
export const PAUSE_TYPE_FOR_SQL = {
  name: 'aq_pause_type_for',
  text: `SELECT 1 FROM aq_pause_type($1::text, $3::text, $2::bigint)`,
};
