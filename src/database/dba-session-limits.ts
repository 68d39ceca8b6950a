/**
 * Lifts, for the current transaction only (`SET LOCAL`), the session limits a DBA
 * may set for every login (`ALTER DATABASE … SET statement_timeout`, `lock_timeout`,
 * `idle_in_transaction_session_timeout`). Used by the schema changes and the
 * migration lock alone: a conversion or migration that waits for a producer's open
 * transaction, or runs long on a big table, would otherwise be cancelled at every
 * start-up and never complete (it is all or nothing, so a cancel keeps nothing);
 * the migration lock must be waited for while another instance migrates, and held
 * while this one does, idle, with the migrations on other connections.
 * Transaction-scoped, so it is safe behind a transaction pooler. (A pooler's own
 * idle-transaction limit, PgBouncer's `idle_transaction_timeout`, is not lifted.)
 */
export const LIFT_DBA_SESSION_LIMITS = 'SET LOCAL statement_timeout = 0; SET LOCAL lock_timeout = 0; SET LOCAL idle_in_transaction_session_timeout = 0';
