import { installRunAloneLock } from './run-alone';
import { installLeakCheck } from './running';

// setupFilesAfterEnv of the database and process projects (jest.config.ts).
// First the run-alone lock (run-alone.ts): the file waits for its turn before
// any hook of its own. Then root-level hooks that fail a test leaving an app or
// a service process running, and run the end-of-file clean-up of
// withTestDatabase/withTestApp.
installRunAloneLock();
installLeakCheck();
