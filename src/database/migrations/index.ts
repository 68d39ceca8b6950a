import { restoreReleasedDefinitions } from './restore-released-definitions';
import { sqlFileMigration } from './sql-file-migration';

/**
 * Every migration of the queue, in order: one numbered pair of `.sql` files
 * each, in src/database/sql (docs/architecture.md, "How it works", says what each holds).
 * Add new ones at the end; never edit a released one. From 048 on they change
 * tables, indexes and data only: functions, trigger functions and views are
 * src/database/functions, applied after them (apply-definitions.ts).
 */
export const MIGRATIONS = [
  sqlFileMigration(1764460800001, 'CreateTables', '001-tables'),
  sqlFileMigration(1764460800002, 'AddWakeUp', '002-wake-up'),
  sqlFileMigration(1764460800003, 'AddLeases', '003-leases'),
  sqlFileMigration(1764460800004, 'AddGroupOrder', '004-group-order'),
  sqlFileMigration(1764460800005, 'AddPromotion', '005-promotion'),
  sqlFileMigration(1764460800006, 'AddWorkerClaim', '006-worker-claim'),
  sqlFileMigration(1764460800007, 'AddWorkerFinish', '007-worker-finish'),
  sqlFileMigration(1764460800008, 'AddLostAttempts', '008-lost-attempts'),
  sqlFileMigration(1764460800009, 'AddAdminReads', '009-admin-reads'),
  sqlFileMigration(1764460800010, 'GuardOperatorSql', '010-operator-sql'),
  sqlFileMigration(1764460800011, 'LostAttemptsInParallel', '011-lost-attempts-in-parallel'),
  sqlFileMigration(1764460800012, 'ReleaseUnknownLeases', '012-unknown-leases'),
  sqlFileMigration(1764460800013, 'NotifyCancelRequests', '013-cancel-notify'),
  sqlFileMigration(1764460800014, 'LimitSqlPayloads', '014-payload-limit'),
  sqlFileMigration(1764460800017, 'AddGroupKeys', '017-group-keys'),
  sqlFileMigration(1764460800020, 'PinSearchPath', '020-pin-search-path'),
  sqlFileMigration(1764460800021, 'NotifySuspects', '021-suspect-notify'),
  sqlFileMigration(1764460800022, 'GuardGroupKeys', '022-group-key-guard'),
  sqlFileMigration(1764460800023, 'ClaimFrontier', '023-claim-frontier'),
  sqlFileMigration(1764460800030, 'AddFlowControl', '030-flow-control'),
  sqlFileMigration(1764460800031, 'AddRateLimits', '031-rate-limits'),
  sqlFileMigration(1764460800035, 'LimitGroupDepth', '035-group-depth-limits'),
  sqlFileMigration(1764460800036, 'AddRecurringActions', '036-recurring-actions'),
  sqlFileMigration(1764460800037, 'AddBulkOperations', '037-bulk-operations'),
  sqlFileMigration(1764460800038, 'HandOffFastPath', '038-hand-off-fast-path'),
  sqlFileMigration(1764460800039, 'GroupHeadRecords', '039-group-head-records'),
  sqlFileMigration(1764460800040, 'GenericIdleProbes', '040-generic-idle-probes'),
  sqlFileMigration(1764460800041, 'ClaimWithoutSort', '041-claim-without-sort'),
  sqlFileMigration(1764460800042, 'OrderedChunks', '042-ordered-chunks'),
  sqlFileMigration(1764460800043, 'ChunkLossesInOrder', '043-chunk-losses-in-order'),
  sqlFileMigration(1764460800044, 'InsertOwnRecords', '044-insert-own-records'),
  sqlFileMigration(1764460800045, 'ChunkMembersLinear', '045-chunk-members-linear'),
  sqlFileMigration(1764460800046, 'FinishWithoutGuard', '046-finish-without-guard'),
  sqlFileMigration(1764460800047, 'SingledLosses', '047-singled-losses'),
  sqlFileMigration(1764460800048, 'DefinitionsLayer', '048-schema-definitions', { beforeDown: restoreReleasedDefinitions }),
  sqlFileMigration(1764460800049, 'StoreTraceContext', '049-trace-context'),
  sqlFileMigration(1764460800050, 'AddGroupState', '050-group-state'),
  sqlFileMigration(1764460800052, 'AddTenants', '052-tenants'),
  sqlFileMigration(1764460800053, 'TenantClaim', '053-tenant-claim'),
];
