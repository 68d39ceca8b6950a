/*
 * What MVCC pressure does to the queue's tables, for `/metrics`
 * (docs/mvcc-pressure.md): dead row versions waiting for vacuum, and how far
 * back the oldest transaction holds the horizon that keeps them. Both read
 * PostgreSQL's statistics views only: constant cost, no table scan.
 */

/**
 * Per queue table (`actions`, `action_group_locks`, `action_group_heads`,
 * `action_attempts`, resolved
 * through the connection's search_path): live and dead row versions
 * (n_live_tup, n_dead_tup; the statistics system's counts, a second or so
 * behind) and the rows inserted, updated (all and HOT: heap-only, no index
 * entry written) and deleted so far, since the statistics were last reset.
 * No parameters.
 */
export const TABLE_HEALTH_SQL = `
SELECT s.relname AS table_name, s.n_live_tup::float8 AS live, s.n_dead_tup::float8 AS dead,
       s.n_tup_ins::float8 AS inserted, s.n_tup_upd::float8 AS updated, s.n_tup_hot_upd::float8 AS hot_updated,
       s.n_tup_del::float8 AS deleted
FROM pg_stat_user_tables AS s
WHERE s.relid IN (to_regclass('actions'), to_regclass('action_group_locks'), to_regclass('action_group_heads'), to_regclass('action_attempts'))`;

/**
 * The MVCC horizon as it bears on this database's tables: the age, in
 * transaction ids, of the oldest xid or snapshot xmin held by a session of
 * this database (or a WAL sender: hot_standby_feedback), a replication slot
 * or a prepared transaction (`xids`), and how long the oldest open
 * transaction of this database has run, in seconds (`seconds`; prepared
 * transactions count from their PREPARE). The session asking is left out.
 * Sessions of other roles count only when this role may read their
 * statistics (pg_read_all_stats). No parameters.
 */
export const MVCC_HORIZON_SQL = `
SELECT coalesce(greatest(
         (SELECT max(greatest(age(a.backend_xid), age(a.backend_xmin))) FROM pg_stat_activity AS a
          WHERE (a.datname = current_database() OR a.datname IS NULL) AND a.pid <> pg_backend_pid()),
         (SELECT max(greatest(age(r.xmin), age(r.catalog_xmin))) FROM pg_replication_slots AS r),
         (SELECT max(age(p.transaction)) FROM pg_prepared_xacts AS p WHERE p.database = current_database())), 0)::float8 AS xids,
       coalesce(extract(epoch FROM now() - least(
         (SELECT min(a.xact_start) FROM pg_stat_activity AS a
          WHERE a.datname = current_database() AND a.pid <> pg_backend_pid()
            AND (a.backend_xid IS NOT NULL OR a.backend_xmin IS NOT NULL)),
         (SELECT min(p.prepared) FROM pg_prepared_xacts AS p WHERE p.database = current_database()))), 0)::float8 AS seconds`;
