import { LISTENER_ERROR_LOG_INTERVAL_MS, ListenerErrorLog } from './listener-error-log';

describe('ListenerErrorLog', () => {
  it('logs the first error at once, then one line per interval counting those left out', () => {
    let now = 0;
    const lines: { message: string; stack: string | undefined }[] = [];
    const log = new ListenerErrorLog(
      (message, stack) => lines.push({ message, stack }),
      () => now,
    );
    log.report('Listener A of queue event "completed"', new Error('one'));
    now = 1;
    log.report('Listener A of queue event "completed"', new Error('two'));
    log.report('Listener A of queue event "completed"', 'three');
    now = LISTENER_ERROR_LOG_INTERVAL_MS;
    log.report('Listener A of queue event "completed"', 'four');
    expect(lines.map((l) => l.message)).toEqual([
      'Listener A of queue event "completed" failed: one',
      'Listener A of queue event "completed" failed: four (and 2 more errors of it since the last line)',
    ]);
    expect(lines[0].stack).toContain('Error: one');
    expect(lines[1].stack).toBeUndefined();
  });
});
