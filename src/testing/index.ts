/**
 * `ordered-action-queue/testing`: helpers to test your own handlers against a
 * real PostgreSQL, the way this repository tests the queue: a throwaway
 * database per test file, actions run through the real worker (in-process
 * with ActionQueueModule, or as a service process), and the recorded trace
 * checked for group order, overlaps, losses and duplicates.
 *
 * @packageDocumentation
 */
export { createTestDatabase, testDatabaseName } from './test-database';
export type { TestDatabase } from './test-database';
export { waitForActions } from './wait-for-actions';
export type { ActionReader, WaitForActionsOptions } from './wait-for-actions';
export { ALL_OUTCOMES, checkTrace, formatTraceReport, peakRunningByWorker, VALID_LEASE_OUTCOMES } from './trace-checker';
export type {
  DoneCountMismatch,
  LostAction,
  OrderViolation,
  Overlap,
  Queryable,
  TraceCheckOptions,
  TracedAttempt,
  TraceOutcome,
  TraceReport,
} from './trace-checker';
export { executionOverlaps, executionsPastDeadline, logExecution, logThreadExits, pairExecutions, readExecutions } from './execution-log';
export type { Execution, ExecutionDeadline, ExecutionEvent, ExecutionOverlap, LateExecution } from './execution-log';
export { freePort, startServiceProcess } from './service-process';
export type { ServiceProcess, ServiceProcessOptions } from './service-process';
