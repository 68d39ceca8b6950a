import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Piscina } from 'piscina';
import { ThreadExits } from './thread-exits';

/**
 * ThreadExits with real threads: stop() resolves on the thread's exit, not on
 * terminate(): a thread inside a blocking native call (a child process run
 * synchronously) keeps running until the call returns, and stop() waits for it.
 * Seen to fail with stop() resolving once terminate() was called.
 */
describe('ThreadExits', () => {
  const file = join(mkdtempSync(join(tmpdir(), 'aq-thread-exits-')), 'task.js');
  writeFileSync(
    file,
    `const { threadId } = require('node:worker_threads');
     module.exports = ({ blockMs }) => {
       if (blockMs) require('node:child_process').execFileSync('sleep', [String(blockMs / 1000)]);
       return threadId;
     };`,
  );
  let pool: Piscina;
  afterEach(async () => {
    await pool?.destroy();
  });

  it('waits for a thread blocked in a native call to exit, and returns at once for a thread gone', async () => {
    pool = new Piscina({ filename: file, minThreads: 0, maxThreads: 1, atomics: 'disabled' });
    const warnings: string[] = [];
    const exits = new ThreadExits((m) => warnings.push(m));
    exits.watch(pool);
    const threadId = (await pool.run({ blockMs: 0 })) as number;
    const blocked = pool.run({ blockMs: 800 }).catch((e: Error) => e.message);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const stoppedAt = performance.now();
    await exits.stop(threadId, 'a test');
    const waitedMs = performance.now() - stoppedAt;
    // It exits when the 800 ms call returns, about 600 ms after the stop.
    expect(waitedMs).toBeGreaterThan(300);
    expect(await blocked).toMatch(/worker exited with code|Terminating worker thread/);
    expect(pool.threads.map((w) => w.threadId)).not.toContain(threadId);
    const again = performance.now();
    await exits.stop(threadId, 'a test');
    expect(performance.now() - again).toBeLessThan(50);
    expect(warnings).toEqual([]);
  });
});
