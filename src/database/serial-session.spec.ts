import type { Client } from 'pg';
import { SerialSession } from './serial-session';

/** A client that records when each statement starts and lets the test end them one by one. */
function fakeClient() {
  const started: string[] = [];
  const enders: { text: string; end: (error?: Error) => void }[] = [];
  let running = 0;
  let peak = 0;
  const client = {
    query: (config: { text: string }) =>
      new Promise((resolve, reject) => {
        started.push(config.text);
        peak = Math.max(peak, ++running);
        enders.push({
          text: config.text,
          end: (error) => {
            running--;
            if (error) reject(error);
            else resolve({ rows: [] });
          },
        });
      }),
  };
  return { client: client as unknown as Client, started, enders, peak: () => peak };
}

describe('SerialSession', () => {
  it('sends each statement only once the one before has ended, failed or not', async () => {
    const { client, started, enders, peak } = fakeClient();
    const session = new SerialSession(client);
    const first = session.query({ text: 'a' });
    const second = session.query({ text: 'b' }).catch((e: Error) => e.message);
    const third = session.query({ text: 'c' });
    await Promise.resolve();
    expect(started).toEqual(['a']);
    expect(session.pending).toBe(3);
    enders[0].end();
    await first;
    await new Promise((r) => setImmediate(r));
    expect(started).toEqual(['a', 'b']);
    enders[1].end(new Error('boom'));
    expect(await second).toBe('boom');
    await new Promise((r) => setImmediate(r));
    expect(started).toEqual(['a', 'b', 'c']);
    enders[2].end();
    await third;
    expect(peak()).toBe(1);
    await new Promise((r) => setImmediate(r));
    expect(session.pending).toBe(0);
  });
});
