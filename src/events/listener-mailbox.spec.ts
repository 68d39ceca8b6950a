import { ListenerMailbox } from './listener-mailbox';

/** Resolves after `n` turns of the event loop. */
async function turns(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

describe('ListenerMailbox', () => {
  it('never calls the listener from post, then delivers in order', async () => {
    const got: number[] = [];
    const box = new ListenerMailbox<number>(
      (n) => void got.push(n),
      10,
      () => undefined,
      () => undefined,
    );
    box.post(1);
    box.post(2);
    box.post(3);
    expect(got).toEqual([]);
    await turns(10);
    expect(got).toEqual([1, 2, 3]);
  });

  it('waits for a listener promise before the next event, and drops past the bound', async () => {
    let release: () => void = () => undefined;
    const got: number[] = [];
    const dropped: number[] = [];
    const box = new ListenerMailbox<number>(
      (n) => {
        got.push(n);
        return new Promise<void>((resolve) => (release = resolve));
      },
      2,
      (n) => dropped.push(n),
      () => undefined,
    );
    box.post(1);
    await turns(2);
    for (let i = 2; i <= 5; i++) box.post(i);
    await turns(3);
    // 1 is being delivered; 2 and 3 wait (the bound); 4 and 5 were dropped.
    expect(got).toEqual([1]);
    expect(dropped).toEqual([4, 5]);
    expect(box.waiting).toBe(2);
    release();
    await turns(5);
    expect(got).toEqual([1, 2]);
  });

  it('reports a thrown or rejected error and keeps delivering', async () => {
    const errors: string[] = [];
    const got: number[] = [];
    const box = new ListenerMailbox<number>(
      (n) => {
        got.push(n);
        if (n === 1) throw new Error('sync');
        if (n === 2) return Promise.reject(new Error('async'));
        return undefined;
      },
      10,
      () => undefined,
      (error) => errors.push((error as Error).message),
    );
    [1, 2, 3].forEach((n) => box.post(n));
    await turns(10);
    expect(got).toEqual([1, 2, 3]);
    expect(errors).toEqual(['sync', 'async']);
  });

  it('delivers nothing more once closed', async () => {
    const got: number[] = [];
    const box = new ListenerMailbox<number>(
      (n) => void got.push(n),
      10,
      () => undefined,
      () => undefined,
    );
    box.post(1);
    box.close();
    box.post(2);
    await turns(5);
    expect(got).toEqual([]);
  });
});
