/**
 * Advisory lock key that serialises schema changes across instances starting
 * together: the numbered migrations (MigrationsService) and the definitions
 * applied after them (apply-definitions.ts), always as a transaction-level
 * lock (`pg_advisory_xact_lock`), which a transaction pooler cannot strand.
 */
export const MIGRATION_LOCK_KEY = 7_461_625_001;
