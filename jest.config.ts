/**
 * @jest-config-loader ts-node
 * @jest-config-loader-options {"transpileOnly": true}
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from 'jest';

/**
 * Three jest projects, told apart by file name (see test/README.md):
 *
 * - unit:     `src/**\/*.spec.ts`, next to the code. No PostgreSQL, no build.
 * - database: `test/database/*.db-spec.ts`. A real PostgreSQL, the app in-process;
 *             each file clones the migrated template database made once per run.
 * - process:  `test/process/*.process-spec.ts`. The built service (`dist/`) run as
 *             OS processes, on databases cloned like the database project's.
 *
 * `npm test` runs all three on two workers: the database and process specs
 * share them, and those marked `@run-alone` wait until they can run with no
 * other spec beside them (test/support/run-alone.ts); `npm run test:unit` runs
 * only the first project.
 */
const common = {
  rootDir: __dirname,
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }] },
} satisfies Config;

/** Hooks shared by the projects that start apps and processes: fail a test that leaves one running. */
const setupFilesAfterEnv = ['<rootDir>/test/support/setup-after-env.ts'];

/**
 * Test files that no project would run (say `test/foo.spec.ts` from a branch
 * written before the split): jest would pass without them, so refuse to start.
 */
function filesNoProjectRuns(): string[] {
  const list = (dir: string) => readdirSync(join(__dirname, dir), { recursive: true, encoding: 'utf8' }).map((f) => `${dir}/${f}`);
  const isTest = (f: string) => /[.-](spec|test)\.ts$/.test(f);
  const runs = (f: string) => /^src\/.*\.spec\.ts$/.test(f) || /^test\/(database\/.*\.db|process\/.*\.process)-spec\.ts$/.test(f);
  return [...list('src'), ...list('test')].filter((f) => isTest(f) && !runs(f));
}

const stray = filesNoProjectRuns();
if (stray.length > 0) {
  throw new Error(
    `No jest project runs ${stray.join(', ')}: name unit specs src/**/<file>.spec.ts, database specs test/database/*.db-spec.ts, process specs test/process/*.process-spec.ts (test/README.md).`,
  );
}

const config: Config = {
  // Two, as the machine has two cores: most specs wait on leases, timers and
  // processes, so two at once take about 0.7x the time of one at a time.
  maxWorkers: 2,
  // Unit specs first: they take no run-alone lock, so none may run beside a spec marked @run-alone.
  testSequencer: '<rootDir>/test/support/unit-first-sequencer.js',
  // Global: jest 30 does not read a project's own testTimeout.
  testTimeout: 120_000,
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/src/**/*.spec.ts'] },
    {
      ...common,
      displayName: 'database',
      testMatch: ['<rootDir>/test/database/**/*.db-spec.ts'],
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
      setupFilesAfterEnv,
    },
    {
      ...common,
      displayName: 'process',
      testMatch: ['<rootDir>/test/process/**/*.process-spec.ts'],
      globalSetup: '<rootDir>/test/support/global-setup-process.ts',
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
      setupFilesAfterEnv,
    },
  ],
};

export default config;
