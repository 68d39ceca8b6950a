import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { QueueSettings } from '../config/settings';
import { SETTINGS } from '../config/settings.token';
import { MIGRATIONS, MIGRATIONS_TABLE } from './data-source-options';
import { QUEUE_DATABASE, QueueDatabase } from './queue-database';
import { QUEUE_DATABASE_CONFIG, QueueDatabaseConfig } from './queue-database-config';
import { otherReleaseSessions } from '../release/other-release-sessions';
import { RELEASE_VERSION } from '../release/release-version';
import { LIFT_DBA_SESSION_LIMITS } from './dba-session-limits';
import { holdsRelease01Schema, RELEASE_0_1_MIGRATIONS, upgradeRelease01Schema } from './release-0.1-upgrade';
import { applyDefinitions, newerDefinitions, pendingDefinitions, refuseNewerDefinitions } from './apply-definitions';
import { MIGRATION_LOCK_KEY } from './migration-lock';
import { provisionCitusPartition } from './citus/citus-partition-provisioner';
import { refuseQueueModeMismatch } from './citus/queue-mode-check';

/** What {@link MigrationsService.schemaState} reads: the queue's migrations in a database against this release's. */
export interface QueueSchemaState {
  /** The queue's schema (DATABASE_SCHEMA, or chosen at start-up). */
  schema: string;
  /** Applied migrations this release knows, in its order, then those of a later release. */
  applied: string[];
  /** This release's migrations not applied yet, in the order start-up applies them. */
  pending: string[];
  /** Migrations (then definitions, `definition <name> (<release>)`) a later release applied: this release refuses to run or migrate. */
  newer: string[];
  /** Every migration of this release, in order. */
  known: string[];
  /** Whether a release 0.1 schema is there, which migrating converts in place first. */
  release01: boolean;
}

/** Names of the queue's migrations, in order (TypeORM's `<Name><timestamp>`). */
const MIGRATION_NAMES = MIGRATIONS.map((migration) => migration.name);

/**
 * Applies pending migrations at start-up, before any worker or route runs
 * (`runMigrations`, default true), or checks that they are applied.
 * Instances that start at the same moment wait for each other on a session
 * advisory lock instead of racing on the DDL. On the app's own DataSource the
 * migrations run through a short-lived DataSource with the same connection
 * options, so the app's own migration list and table are never touched.
 *
 * Before the chain it converts a release 0.1 database in place (see
 * upgradeRelease01Schema); after it, under the same lock, it applies the
 * current definitions of the functions, trigger functions and views whose
 * files changed (applyDefinitions). It refuses a schema newer than this
 * release knows (a migration recorded that is not in its list, or a
 * definition applied by a newer release): an older instance never runs
 * against a newer release's tables and functions. It applies no migration
 * nor definition while an instance of another release is connected (known
 * by its connections' `application_name`, see otherReleaseSessions).
 *
 * The queue's schema (DATABASE_SCHEMA) is created when missing; every
 * migration runs with its transaction's search_path set to exactly that
 * schema (sql-file-migration.ts), whatever a DBA set for the database or
 * role. The lock is a transaction-level advisory lock held by an open
 * transaction: through a transaction pooler a session lock could be taken
 * on one server connection and "released" on another, and then hold every
 * later start-up forever. After migrating it checks that the pool's
 * unqualified names reach the queue's tables, and says why when they do not.
 */
@Injectable()
export class MigrationsService implements OnModuleInit {
  private readonly logger = new Logger(MigrationsService.name);
  private appliedByThisInstance: string[] = [];

  constructor(
    @Inject(QUEUE_DATABASE) private readonly database: QueueDatabase,
    @Inject(QUEUE_DATABASE_CONFIG) private readonly config: QueueDatabaseConfig,
    @Inject(SETTINGS) private readonly settings: QueueSettings,
  ) {}

  /** Schema of the queue's tables and functions, as chosen at start-up (queue-schema-choice.ts). */
  private get schema(): string {
    return this.database.placement.schema;
  }

  async onModuleInit(): Promise<void> {
    // Before anything is created: a Citus cluster in plain mode, or the reverse (docs/scale-out.md).
    await refuseQueueModeMismatch((sql, params) => this.database.dataSource.query(sql, params), this.settings.QUEUE_MODE);
    await this.refuseNewerSchema();
    if (!this.config.runMigrations) {
      if (await holdsRelease01Schema(this.database.dataSource, MIGRATIONS_TABLE)) {
        throw new Error(
          'This database holds a version 0.1 queue schema; start once with runMigrations: true to convert it in place (docs/operations.md, "Upgrading from 0.1")',
        );
      }
      const pending = await this.pending();
      if (pending.length > 0) {
        throw new Error(`The action queue's migrations ${pending.join(', ')} are not applied; start once with runMigrations: true`);
      }
      const definitions = await pendingDefinitions(this.database.dataSource, this.schema);
      if (definitions.length > 0) {
        throw new Error(`The action queue's definitions ${definitions.join(', ')} are not applied; start once with runMigrations: true`);
      }
    } else {
      const dataSource = this.database.owned ? this.database.dataSource : await migrationDataSource(this.database.dataSource, this.schema);
      try {
        await this.migrate(dataSource);
      } finally {
        if (dataSource !== this.database.dataSource) await dataSource.destroy();
      }
    }
    await this.checkNameResolution();
    await this.checkPayloadLimitSetting();
  }

  /**
   * The migrations this instance applied itself at its start-up (in order;
   * empty when another instance, holding the lock first, applied them): what
   * the command line's `migrate` reports as applied.
   */
  get appliedAtStartUp(): readonly string[] {
    return this.appliedByThisInstance;
  }

  /** Whether every known migration is applied (for readiness). */
  async allApplied(): Promise<boolean> {
    return (await this.pending()).length === 0 && (await pendingDefinitions(this.database.dataSource, this.schema)).length === 0;
  }

  /**
   * The queue's migrations in this database measured against this release's
   * list, read without changing anything (the command line's `schema-version`
   * and `migrate --dry-run`). The release can run on the schema when both
   * `pending` and `newer` are empty.
   *
   * @returns names as TypeORM records them (`<Name><timestamp>`): `applied` in
   *   this release's order (then any newer ones), `pending` not applied yet (what
   *   start-up would apply, in order), `newer` applied by a later release
   *   (migrations, then definitions a later release applied, as
   *   `definition <name> (<release>)`: this release refuses those too),
   *   `release01` whether a release 0.1 schema awaits conversion in place.
   */
  async schemaState(): Promise<QueueSchemaState> {
    const recorded = await this.applied();
    const appliedSet = new Set(recorded);
    const known = new Set([...MIGRATION_NAMES, ...RELEASE_0_1_MIGRATIONS]);
    const newer = [
      ...recorded.filter((name) => !known.has(name)),
      ...(await newerDefinitions(this.database.dataSource, this.schema)).map((d) => `definition ${d.name} (${d.release})`),
    ];
    return {
      schema: this.schema,
      applied: [...MIGRATION_NAMES.filter((name) => appliedSet.has(name)), ...newer],
      pending: MIGRATION_NAMES.filter((name) => !appliedSet.has(name)),
      newer,
      known: MIGRATION_NAMES,
      release01: await holdsRelease01Schema(this.database.dataSource, MIGRATIONS_TABLE),
    };
  }

  private async migrate(dataSource: DataSource): Promise<void> {
    const lockRunner = dataSource.createQueryRunner();
    await lockRunner.connect();
    try {
      await lockRunner.startTransaction();
      // A DBA's session limits must neither cancel the wait for another instance's
      // migrations nor end this transaction while it sits idle holding the lock (the
      // migrations run on other connections): either would let two instances migrate
      // at once, or fail a start-up that only had to wait. SET LOCAL: this transaction only.
      await lockRunner.query(LIFT_DBA_SESSION_LIMITS);
      await lockRunner.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
      // Again under the lock: a newer instance may have migrated meanwhile.
      await this.refuseNewerSchema();
      if (this.settings.QUEUE_MODE === 'citus') await this.provisionCitusPartition(dataSource);
      // Before TypeORM looks for its migrations table in the schema. Only when
      // missing: CREATE SCHEMA IF NOT EXISTS needs the CREATE right on the database even then.
      const [{ exists }]: { exists: boolean }[] = await dataSource.query('SELECT to_regnamespace(quote_ident($1)) IS NOT NULL AS exists', [this.schema]);
      if (!exists) await dataSource.query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdentifier(this.schema)}`);
      if (await upgradeRelease01Schema(dataSource, MIGRATIONS_TABLE)) {
        this.logger.log('Converted the version 0.1 queue schema in place (pending, running and failed actions, history and idempotency keys kept)');
      }
      const pending = [...(await this.pending()), ...(await pendingDefinitions(dataSource, this.schema)).map((name) => `definition ${name}`)];
      const others = pending.length > 0 ? await otherReleaseSessions(dataSource) : [];
      if (others.length > 0) {
        throw new Error(
          `The action queue's migrations ${pending.join(', ')} are not applied: instances of another release are connected ` +
            `(${others.map((o) => `pid ${o.pid} ${o.applicationName}`).join(', ')}). Stop them, then start release ${RELEASE_VERSION} again: ` +
            'old and new releases never run together across a schema change (README, "Upgrading")',
        );
      }
      const applied = await dataSource.runMigrations({ transaction: 'each' });
      this.appliedByThisInstance = applied.map((m) => m.name);
      if (applied.length > 0) this.logger.log(`Applied migrations: ${applied.map((m) => m.name).join(', ')}`);
      const definitions = await applyDefinitions(dataSource, this.schema, { lockHeld: true });
      if (definitions.length > 0) this.logger.log(`Applied definitions: ${definitions.join(', ')}`);
    } finally {
      await lockRunner.rollbackTransaction().catch(() => undefined);
      await lockRunner.release();
    }
  }

  /**
   * Citus mode: makes the queue's schema a partition placed on one node the
   * first time (provisionCitusPartition: migrated as plain PostgreSQL, then
   * distributed), under the migration lock. A partition already distributed
   * is left to the usual path: its migrations and definitions are applied
   * (nothing pending on the release that made it).
   */
  private async provisionCitusPartition(dataSource: DataSource): Promise<void> {
    const [{ found }]: { found: boolean }[] = await dataSource.query(
      'SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_dist_schema WHERE schemaid = to_regnamespace(quote_ident($1))) AS found',
      [this.schema],
    );
    if (found) return;
    const made = await provisionCitusPartition(this.database.url, this.schema, this.settings.CITUS_PARTITIONS);
    this.logger.log(`Made partition ${made.schema} of the queue on Citus node ${made.node} (${made.functions} functions distributed)`);
  }

  /**
   * Fails start-up with the real cause when the pool's unqualified names
   * (the service's statements use them) do not reach the queue's tables:
   * behind a transaction pooler the service cannot pin search_path, so a
   * DBA's `ALTER DATABASE … SET search_path`, or a DATABASE_SCHEMA the
   * pooler's server connections do not have, would otherwise surface later
   * as "relation does not exist" or as another schema's `actions` table.
   */
  private async checkNameResolution(): Promise<void> {
    const [row]: { ok: boolean; search_path: string }[] = await this.database.dataSource.query(
      `SELECT to_regclass('actions') IS NOT DISTINCT FROM to_regclass(format('%I.actions', $1::text)) AS ok, current_setting('search_path') AS search_path`,
      [this.schema],
    );
    if (row.ok) return;
    if (!this.database.owned) {
      // The app's DataSource: its connections are the app's, never pinned by the queue.
      throw new Error(
        `The queue's tables are in schema "${this.schema}", but your DataSource's search_path is "${row.search_path}", where "actions" ` +
          `means another table or none: add the schema to its search_path (TypeORM: extra: { options: '-c search_path=public,${this.schema}' }), ` +
          `or give the queue its own pool (database: { url }); see docs/using-the-package.md`,
      );
    }
    throw new Error(
      `The queue's tables are in schema "${this.schema}" (DATABASE_SCHEMA, or chosen at start-up), but this connection's search_path is "${row.search_path}", ` +
        `where "actions" means another table or none. Behind a transaction pooler the service cannot set search_path itself: ` +
        `set it for the pooler's login (ALTER ROLE <user> IN DATABASE <db> SET search_path = ${this.schema}) or in the pooler ` +
        `(PgBouncer: connect_query); see docs/operations.md, "Behind a pooler"`,
    );
  }

  /**
   * Fails start-up when the database's `aq.max_payload_bytes` (migration 014)
   * is not a whole number of bytes: PostgreSQL cannot validate a custom
   * setting, and the insert trigger's cast of, say, `128kB` would fail every
   * enqueue (a 500 naming nothing), while `-1` or ` 0` would refuse every payload.
   */
  private async checkPayloadLimitSetting(): Promise<void> {
    const [{ value }]: { value: string | null }[] = await this.database.dataSource.query(`SELECT current_setting('aq.max_payload_bytes', true) AS value`);
    if (value === null || value === '' || /^[0-9]{1,18}$/.test(value)) return;
    throw new Error(
      `The database setting aq.max_payload_bytes is ${JSON.stringify(value)}; it must be a whole number of bytes (0: no limit), ` +
        `else every insert into actions fails or is refused. Fix it with ALTER DATABASE <db> SET aq.max_payload_bytes = '<bytes>' ` +
        `(or RESET it: 131072); see docs/operations.md, "Payload limit of SQL producers"`,
    );
  }

  /** Names of the migrations not recorded as applied. */
  private async pending(): Promise<string[]> {
    const applied = new Set(await this.applied());
    return MIGRATION_NAMES.filter((name) => !applied.has(name));
  }

  /** Names recorded in the queue's migrations table (none when it does not exist). */
  private async applied(): Promise<string[]> {
    const table = `${quoteIdentifier(this.schema)}.${MIGRATIONS_TABLE}`;
    const [{ exists }]: { exists: boolean }[] = await this.database.dataSource.query('SELECT to_regclass($1) IS NOT NULL AS exists', [table]);
    const rows: { name: string }[] = exists ? await this.database.dataSource.query(`SELECT name FROM ${table}`) : [];
    return rows.map((r) => r.name);
  }

  /**
   * Throws when the database records a migration this release does not know:
   * a later release migrated it, and this instance's statements may no longer
   * fit its tables and functions (README, "Upgrading"); or when a definition
   * was applied by a newer release (refuseNewerDefinitions).
   */
  private async refuseNewerSchema(): Promise<void> {
    await refuseNewerDefinitions(this.database.dataSource, this.schema);
    const known = new Set([...MIGRATION_NAMES, ...RELEASE_0_1_MIGRATIONS]);
    const unknown = (await this.applied()).filter((name) => !known.has(name));
    if (unknown.length > 0) {
      throw new Error(
        `The action queue's schema in this database is newer than release ${RELEASE_VERSION} knows (migrations ${unknown.join(', ')} ` +
          'were applied by a later release); run that release or a newer one: an instance never runs against a schema it does not know (README, "Upgrading")',
      );
    }
  }
}

/** `name` as a quoted SQL identifier. */
function quoteIdentifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** A DataSource on the same database as `app`'s, holding only the queue's migrations, their table in `schema` (closed by the caller). */
async function migrationDataSource(app: DataSource, schema: string): Promise<DataSource> {
  const dataSource = new DataSource({
    ...app.options,
    schema,
    name: 'action-queue-migrations',
    entities: [],
    subscribers: [],
    migrations: MIGRATIONS,
    migrationsTableName: MIGRATIONS_TABLE,
    migrationsTransactionMode: 'each',
    migrationsRun: false,
    synchronize: false,
    dropSchema: false,
    logging: false,
    poolSize: 2,
  } as typeof app.options);
  return dataSource.initialize();
}
