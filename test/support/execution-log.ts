// The execution log's reader and checks live in src/testing (published to users); kept here for existing imports.
export { executionOverlaps, executionsPastDeadline, pairExecutions, readExecutions } from '../../src/testing/execution-log';
export type { Execution, ExecutionDeadline, ExecutionOverlap, LateExecution } from '../../src/testing/execution-log';
