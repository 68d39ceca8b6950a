/**
 * The idle instance's one statement (the poll, and a non-leading instance's
 * late look after a notification), run on its LISTEN connection: takes the
 * wake-up leadership for this instance's set of types if it is free, and says
 * whether a claimable head that has been due for at least `$5` ms
 * (`ready`: the leader would have taken it by then) or a due suspect head
 * (`suspect_ready`) of these types exists now. Two index probes that stop at the first match
 * (actions_claimable_idx, actions_quarantined_idx, both `(run_at, id)`: the
 * entries due first come first), and at most one advisory lock call, which a
 * leader skips (session locks stack: it must not take its own lock twice).
 * Parameters: `$1::text[]` types, `$2::boolean` whether this connection leads
 * already, `$3::int` / `$4::int` the lock's two keys (WakeLeadership), `$5::int`
 * the grace (ms) a head is left to the leader (0 for the leader itself).
 * The probe is `aq_wake_probe` (src/database/functions/aq_wake_probe.sql):
 * it looks from a per-connection floor, as the claim does, so a held MVCC
 * horizon's dead entries at the start of the index are not walked at every poll.
 */
export const WAKE_PROBE_SQL = {
  name: 'aq_wake_probe',
  text: `SELECT leads, ready, suspect_ready FROM aq_wake_probe($1::text[], $2::boolean, $3::int, $4::int, $5::int)`,
};

/**
 * A leader that had no room for the work a notification announced passes
 * it on to every instance: `$1::text` the relayed payload
 * (RELAYED_WAKE_PAYLOAD).
 */
export const RELAY_WAKE_SQL = {
  name: 'aq_relay_wake',
  text: `SELECT pg_notify('actions_ready', $1::text)`,
};
