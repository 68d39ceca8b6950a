import { freePort, runServiceToExit } from '../support';

/**
 * A start against a database nobody answers for: the operator sees at once
 * where it connects, every retry when it happens (3 s apart, in real
 * timestamps: start-up lines are not buffered until the app exists), and a
 * last line naming host, port, cause and what to check, within the
 * documented 30 s of retries (docs/operations.md, "Start-up").
 */
describe('database unreachable at start-up', () => {
  it('says at once where it connects, logs each retry as it happens, and stops within 35 s naming host, port, cause and what to check', async () => {
    // A port where nothing listens: every attempt is refused at once.
    const port = await freePort();
    const { code, lines } = await runServiceToExit({ DATABASE_URL: `postgres://postgres@127.0.0.1:${port}/aq_unreachable`, LOG_LEVEL: 'info' }, 45_000);
    expect(code).not.toBe(0);
    const logged = lines.flatMap(({ atMs, text }) => parseLogLine(atMs, text));
    const where = `127.0.0.1:${port}`;

    // The line naming the server comes with the process's first lines, not when start-up has given up
    // (node's own start can take seconds on a loaded machine, so measured from its first line).
    const first = logged.find((line) => line.msg.includes(where));
    expect(first?.msg).toMatch(/^Connecting to PostgreSQL at 127\.0\.0\.1:\d+/);
    expect(first!.atMs - logged[0].atMs).toBeLessThan(2_000);
    expect(first!.atMs).toBeLessThan(15_000);

    // Each retry is printed when it happens: about 3 s apart on arrival, and so in its own timestamps.
    const retries = logged.filter((line) => line.msg.startsWith(`Could not connect to PostgreSQL at ${where} (attempt`));
    expect(retries.length).toBeGreaterThanOrEqual(8);
    for (let i = 1; i < retries.length; i++) {
      expect(retries[i].atMs - retries[i - 1].atMs).toBeGreaterThan(2_000);
      expect(retries[i].time - retries[i - 1].time).toBeGreaterThan(2_000);
    }

    // The last line: host, port, the cause and what to check, within the documented 30 s (+ 5 s for an attempt).
    const last = logged[logged.length - 1];
    expect(last.level).toBeGreaterThanOrEqual(50);
    expect(last.msg).toContain(`Could not connect to PostgreSQL at ${where}`);
    expect(last.msg).toContain('ECONNREFUSED');
    expect(last.msg).toMatch(/check that PostgreSQL runs/i);
    expect(last.atMs - first!.atMs).toBeGreaterThan(25_000);
    expect(last.atMs - first!.atMs).toBeLessThan(35_000);
  }, 60_000);
});

/** A pino JSON line with its arrival time; any other line (none expected) as a level-less entry. */
function parseLogLine(atMs: number, text: string): Array<{ atMs: number; time: number; level: number; msg: string }> {
  if (text.trim() === '') return [];
  try {
    const { time, level, msg } = JSON.parse(text) as { time: number; level: number; msg: string };
    return [{ atMs, time, level, msg }];
  } catch {
    return [{ atMs, time: 0, level: 0, msg: text }];
  }
}
