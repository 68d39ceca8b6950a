import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
// The execution log's reader and checks live in src/testing (published to users); kept here for existing imports.
export { executionOverlaps, executionsPastDeadline, pairExecutions, readExecutions } from '../../src/testing/execution-log';
export type { Execution, ExecutionDeadline, ExecutionOverlap, LateExecution } from '../../src/testing/execution-log';

/**
 * A path for a new execution log (`EXEC_LOG`): `exec.log` in a new temporary
 * folder `aq-<label>-<random>`, so each spec reads only its own handlers' events.
 */
export function newExecutionLogPath(label: string): string {
  return join(mkdtempSync(join(tmpdir(), `aq-${label}-`)), 'exec.log');
}
