import { installLeakCheck } from './running';

// setupFilesAfterEnv of the database and process projects (jest.config.ts):
// root-level hooks that fail a test leaving an app or a service process
// running, and run the end-of-file clean-up of withTestDatabase/withTestApp.
installLeakCheck();
