/**
 * What a test file has running: the apps and service processes started by the
 * support helpers, and the clean-up the file-level helpers owe at its end.
 * One instance per test file (jest gives each file its own module registry);
 * `setup-after-env.ts` registers the hooks that read it.
 */

import { childPids, listeningServers, stopUntracked } from './untracked-leaks';

/** An app or service process started by a support helper. */
interface Started {
  /** What it is, for the failure message (`app on http://…`, `service process 123 on http://…`). */
  what: string;
  /** The test that started it, or undefined when a beforeAll did (then the file owns it). */
  test: string | undefined;
  isRunning(): boolean;
  /** Stops it without grace (close the app, SIGKILL the process). */
  stop(): Promise<unknown>;
}

const started = new Set<Started>();
const fileTeardowns: (() => Promise<void>)[] = [];
let currentTest: string | undefined;
let hooksInstalled = false;

/**
 * Records a running app or service process so that the leak check can fail a
 * test that leaves it running. Forgotten once it is no longer running.
 */
export function trackRunning(what: string, isRunning: () => boolean, stop: () => Promise<unknown>): void {
  started.add({ what, test: currentTest, isRunning, stop });
}

/**
 * Registers clean-up to run at the very end of the test file, after every
 * `afterAll` of its describe blocks (for example dropping a database that the
 * file's own hooks may still use). Runs in reverse order of registration.
 */
export function atEndOfFile(teardown: () => Promise<void>): void {
  assertHooksInstalled('atEndOfFile');
  fileTeardowns.push(teardown);
}

/** Throws unless the hooks of `setup-after-env.ts` are installed (the database and process jest projects). */
export function assertHooksInstalled(caller: string): void {
  if (!hooksInstalled)
    throw new Error(
      `${caller} needs test/support/setup-after-env.ts in setupFilesAfterEnv: name the file *.db-spec.ts or *.process-spec.ts (see test/README.md)`,
    );
}

/** Stops whatever `select` picks that still runs, and returns a message naming it, or undefined when nothing was left. */
async function stopLeft(select: (s: Started) => boolean, where: string): Promise<string | undefined> {
  const left = [...started].filter((s) => s.isRunning() && select(s));
  for (const s of started) if (!s.isRunning()) started.delete(s);
  if (left.length === 0) return undefined;
  await Promise.allSettled(left.map((s) => s.stop()));
  for (const s of left) started.delete(s);
  return `${where} left running (now stopped): ${left.map((s) => s.what).join('; ')}. Close every app and stop every process you start (in a finally block or an afterAll hook).`;
}

/** Hooks for `setup-after-env.ts`; called once per test file, at its root level. */
export function installLeakCheck(): void {
  hooksInstalled = true;
  let atStart = { pids: [] as number[], servers: 0 };
  beforeAll(() => {
    // The first root-level hook of the file: what runs before any of its own hooks.
    atStart = { pids: childPids(), servers: listeningServers() };
  });
  beforeEach(() => {
    currentTest = expect.getState().currentTestName ?? '(unnamed test)';
  });
  afterEach(async () => {
    const test = currentTest;
    currentTest = undefined;
    const message = await stopLeft((s) => s.test === test, 'This test');
    if (message) throw new Error(message);
  });
  afterAll(async () => {
    // Root-level afterAll: runs after the afterAll hooks of every describe block of the file.
    const message = await stopLeft(() => true, 'This test file');
    const errors: unknown[] = [];
    for (const teardown of fileTeardowns.splice(0).reverse()) await teardown().catch((error: unknown) => errors.push(error));
    // Then what no helper tracked: child processes spawned directly, servers never closed.
    const untracked = stopUntracked(atStart, 'This test file');
    if (message) throw new Error(message);
    if (errors.length > 0) throw errors[0];
    if (untracked) throw new Error(untracked);
  });
}
